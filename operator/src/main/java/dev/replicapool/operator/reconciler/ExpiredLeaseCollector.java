package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.operator.discovery.LeaseExpiry;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes registration Leases nobody renewed for {@link #GRACE_MILLIS} past their expiry: the
 * replica that held one is gone, and its Lease would otherwise stay in the namespace for ever. Only
 * a Lease whose expiry is a fact ({@link LeaseExpiry}) is deleted.
 */
final class ExpiredLeaseCollector {
  private static final Logger log = LoggerFactory.getLogger(ExpiredLeaseCollector.class);

  /** A Lease expired this long is deleted: nobody renews it any more. */
  static final long GRACE_MILLIS = 60_000;

  private final LeaseExpiry expiry;

  ExpiredLeaseCollector(LeaseExpiry expiry) {
    this.expiry = expiry;
  }

  /** A precondition on the resourceVersion keeps a renewal that raced the deletion safe. */
  void collect(KubernetesClient client, ReplicaPool pool, List<Lease> leases, long nowMillis) {
    if (pool.getSpec().registration == null) {
      return;
    }
    long duration = pool.getSpec().registration.leaseDurationMillis;
    for (Lease lease : leases) {
      if (nowMillis >= expiry.dueMillis(lease, duration) + GRACE_MILLIS
          && expiry.judge(lease, duration, nowMillis) == LeaseExpiry.Verdict.EXPIRED) {
        delete(client, lease);
      }
    }
  }

  private static void delete(KubernetesClient client, Lease lease) {
    String namespace = lease.getMetadata().getNamespace();
    String name = lease.getMetadata().getName();
    try {
      client
          .leases()
          .inNamespace(namespace)
          .withName(name)
          .lockResourceVersion(lease.getMetadata().getResourceVersion())
          .delete();
      log.info("deleted expired Lease {}/{}", namespace, name);
    } catch (RuntimeException e) {
      log.debug("could not delete expired Lease {}: {}", name, e.getMessage());
    }
  }
}
