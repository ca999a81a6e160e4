package dev.replicapool.operator.reconciler;

import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.operator.discovery.LeaseExpiry;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads afresh, from the API server, the Leases of a pool whose expiry the watch cannot vouch for
 * ({@link LeaseExpiry.Verdict#UNCONFIRMED}): the read either shows the renewal the watch has not
 * delivered yet, or that there was none, which makes the expiry a fact. Runs before discovery, so
 * that a reconcile removes a member only on what it read. A read that fails changes nothing.
 */
final class SilentLeaseCheck {
  private static final Logger log = LoggerFactory.getLogger(SilentLeaseCheck.class);

  /** A read answers within this or is given up: the members stay and are looked at again. */
  static final int READ_TIMEOUT_MILLIS = 1_000;

  private final LeaseExpiry expiry;

  SilentLeaseCheck(LeaseExpiry expiry) {
    this.expiry = expiry;
  }

  /**
   * One list of the pool's Leases from the API server (a current read, whatever the cache holds)
   * answers for every unconfirmed one at once, so a watch gap costs one request per pool and
   * recheck, not one per member.
   *
   * @param nowMillis taken before the read is sent, so the read proves silence up to then
   */
  void check(KubernetesClient client, ReplicaPool pool, List<Lease> leases, long nowMillis) {
    if (pool.getSpec().registration == null) {
      return;
    }
    long duration = pool.getSpec().registration.leaseDurationMillis;
    List<Lease> unconfirmed =
        leases.stream()
            .filter(l -> expiry.judge(l, duration, nowMillis) == LeaseExpiry.Verdict.UNCONFIRMED)
            .toList();
    if (unconfirmed.isEmpty()) {
      return;
    }
    String namespace = pool.getMetadata().getNamespace();
    Map<String, Lease> fresh;
    try {
      fresh =
          oneTry(client)
              .leases()
              .inNamespace(namespace)
              .withLabel(LeaseConventions.POOL_LABEL, pool.getMetadata().getName())
              .list()
              .getItems()
              .stream()
              .collect(Collectors.toMap(l -> l.getMetadata().getName(), l -> l));
    } catch (RuntimeException e) {
      log.debug(
          "could not read the Leases of {}/{} afresh: {}",
          namespace,
          pool.getMetadata().getName(),
          e.getMessage());
      return;
    }
    for (Lease cached : unconfirmed) {
      // Absent from the list: deleted, so not renewed either.
      expiry.tracker().confirmFresh(cached, fresh.get(cached.getMetadata().getName()), nowMillis);
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
