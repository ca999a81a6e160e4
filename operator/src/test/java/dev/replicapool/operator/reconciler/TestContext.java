package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.IndexedResourceCache;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.api.reconciler.dependent.managed.ManagedWorkflowAndDependentResourceContext;
import io.javaoperatorsdk.operator.processing.event.EventSourceRetriever;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;

/**
 * The JOSDK context of one reconcile as the reconciler uses it: the client, and whether the pool
 * was deleted. The reconciler reads secondary resources through its {@link PoolInputs}, not here.
 */
final class TestContext implements Context<ReplicaPool> {
  private final KubernetesClient client;
  private final ReplicaPool pool;
  private final boolean deleted;

  private TestContext(KubernetesClient client, ReplicaPool pool, boolean deleted) {
    this.client = client;
    this.pool = pool;
    this.deleted = deleted;
  }

  static TestContext of(KubernetesClient client, ReplicaPool pool) {
    return new TestContext(client, pool, false);
  }

  static TestContext deleted(KubernetesClient client, ReplicaPool pool) {
    return new TestContext(client, pool, true);
  }

  @Override
  public KubernetesClient getClient() {
    return client;
  }

  @Override
  public ReplicaPool getPrimaryResource() {
    return pool;
  }

  @Override
  public boolean isPrimaryResourceDeleted() {
    return deleted;
  }

  @Override
  public boolean isPrimaryResourceFinalStateUnknown() {
    return false;
  }

  @Override
  public Optional<RetryInfo> getRetryInfo() {
    return Optional.empty();
  }

  @Override
  public boolean isNextReconciliationImminent() {
    return false;
  }

  @Override
  public <R> Set<R> getSecondaryResources(Class<R> expectedType) {
    throw new UnsupportedOperationException("the reconciler reads PoolInputs");
  }

  @Override
  public <R> Optional<R> getSecondaryResource(Class<R> expectedType, String eventSourceName) {
    throw new UnsupportedOperationException("the reconciler reads PoolInputs");
  }

  @Override
  public ControllerConfiguration<ReplicaPool> getControllerConfiguration() {
    throw new UnsupportedOperationException();
  }

  @Override
  public ManagedWorkflowAndDependentResourceContext managedWorkflowAndDependentResourceContext() {
    throw new UnsupportedOperationException();
  }

  @Override
  public EventSourceRetriever<ReplicaPool> eventSourceRetriever() {
    throw new UnsupportedOperationException();
  }

  @Override
  public ExecutorService getWorkflowExecutorService() {
    throw new UnsupportedOperationException();
  }

  @Override
  public IndexedResourceCache<ReplicaPool> getPrimaryCache() {
    throw new UnsupportedOperationException();
  }
}
