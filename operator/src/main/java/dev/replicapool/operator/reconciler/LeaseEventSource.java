package dev.replicapool.operator.reconciler;

import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.operator.discovery.LeaseTracker;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.Set;

/**
 * Watches registration Leases (those labelled with a pool) and notes the moment each renewal is
 * seen, before JOSDK triggers the pool's reconcile: expiry is judged on the operator's clock.
 */
final class LeaseEventSource extends InformerEventSource<Lease, ReplicaPool> {
  private final LeaseTracker tracker;

  LeaseEventSource(EventSourceContext<ReplicaPool> context, LeaseTracker tracker) {
    super(
        InformerEventSourceConfiguration.from(Lease.class, ReplicaPool.class)
            .withName("registration-leases")
            .withLabelSelector(LeaseConventions.POOL_LABEL)
            .withSecondaryToPrimaryMapper(
                lease ->
                    Set.of(
                        new ResourceID(
                            lease.getMetadata().getLabels().get(LeaseConventions.POOL_LABEL),
                            lease.getMetadata().getNamespace())))
            .build(),
        context);
    this.tracker = tracker;
  }

  @Override
  public void onAdd(Lease lease) {
    tracker.observe(lease);
    super.onAdd(lease);
  }

  @Override
  public void onUpdate(Lease oldLease, Lease newLease) {
    tracker.observe(newLease);
    super.onUpdate(oldLease, newLease);
  }

  @Override
  public void onDelete(Lease lease, boolean deletedFinalStateUnknown) {
    tracker.forget(lease);
    super.onDelete(lease, deletedFinalStateUnknown);
  }
}
