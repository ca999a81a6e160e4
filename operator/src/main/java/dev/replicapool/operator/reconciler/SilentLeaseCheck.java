package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.operator.discovery.LeaseExpiry;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads afresh, from the API server, each Lease of a pool whose expiry the watch cannot vouch for
 * ({@link LeaseExpiry.Verdict#UNCONFIRMED}): the read either shows the renewal the watch has not
 * delivered yet, or that there was none, which makes the expiry a fact. Runs before discovery, so
 * that a reconcile removes a member only on what it read. A read that fails changes nothing.
 */
final class SilentLeaseCheck {
  private static final Logger log = LoggerFactory.getLogger(SilentLeaseCheck.class);

  /** A read answers within this or is given up: the member stays and is looked at again. */
  static final int READ_TIMEOUT_MILLIS = 1_000;

  private final LeaseExpiry expiry;

  SilentLeaseCheck(LeaseExpiry expiry) {
    this.expiry = expiry;
  }

  /**
   * @param nowMillis taken before any read is sent, so each read proves silence up to then
   */
  void check(KubernetesClient client, ReplicaPool pool, List<Lease> leases, long nowMillis) {
    if (pool.getSpec().registration == null) {
      return;
    }
    long duration = pool.getSpec().registration.leaseDurationMillis;
    KubernetesClient reader = null;
    for (Lease cached : leases) {
      if (expiry.judge(cached, duration, nowMillis) != LeaseExpiry.Verdict.UNCONFIRMED) {
        continue;
      }
      if (reader == null) {
        reader = oneTry(client);
      }
      String namespace = cached.getMetadata().getNamespace();
      String name = cached.getMetadata().getName();
      try {
        Lease fresh = reader.leases().inNamespace(namespace).withName(name).get();
        expiry.tracker().confirmFresh(cached, fresh, nowMillis);
      } catch (RuntimeException e) {
        log.debug("could not read Lease {}/{} afresh: {}", namespace, name, e.getMessage());
      }
    }
  }

  /**
   * The same client without retries and with a short timeout: an unreachable API server must not
   * hold the reconcile for the client's whole backoff. Shares the client's HTTP client, so it is
   * not closed.
   */
  private static KubernetesClient oneTry(KubernetesClient client) {
    return client
        .newClient(
            new RequestConfigBuilder(client.getConfiguration().getRequestConfig())
                .withRequestRetryBackoffLimit(0)
                .withRequestTimeout(READ_TIMEOUT_MILLIS)
                .build())
        .adapt(KubernetesClient.class);
  }
}
