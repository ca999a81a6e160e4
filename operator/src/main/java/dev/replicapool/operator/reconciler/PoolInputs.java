package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.operator.discovery.LeaseTracker;
import dev.replicapool.operator.discovery.LeaseWatch;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Clock;
import java.util.List;

/**
 * The cluster objects a reconcile reads besides the pool: Pods, registration Leases, TLS Secrets
 * and ConfigMaps of the pool's namespace. The operator reads them from informer caches ({@link
 * InformerInputs}); a test may read them from the API server directly.
 */
interface PoolInputs {
  /** Every Pod of the namespace: discovery matches the selector itself (it may have changed). */
  List<Pod> pods(String namespace);

  /** The registration Leases labelled with this pool. */
  List<Lease> leases(String namespace, String pool);

  /** A {@code kubernetes.io/tls} Secret; null when there is none of that name. */
  Secret tlsSecret(String namespace, String name);

  /** A ConfigMap; null when there is none of that name. */
  ConfigMap configMap(String namespace, String name);

  /**
   * When ({@link System#nanoTime()}) the earliest Pod or Lease event for the pool since the last
   * call was seen, {@code none} when there was none; forgets it. A reconcile takes it as it starts:
   * the change it publishes was seen then, which is where its convergence time starts.
   */
  default long takeChangeSeen(ResourceID pool, long none) {
    return none;
  }

  /**
   * The event sources that fill these inputs and trigger reconciles; none when nothing caches.
   *
   * @param leaseTracker to be told of every Lease renewal as it is seen
   * @param leaseWatch to be told whether the Lease watch is live, and of every Lease event
   */
  default List<EventSource<?, ReplicaPool>> eventSources(
      EventSourceContext<ReplicaPool> context,
      LeaseTracker leaseTracker,
      LeaseWatch leaseWatch,
      Clock clock) {
    return List.of();
  }
}
