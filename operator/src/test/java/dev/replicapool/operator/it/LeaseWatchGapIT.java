package dev.replicapool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.api.v1alpha1.Registration;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.testing.ReplicaProcess;
import io.micrometer.core.instrument.Gauge;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Lease members (900 ms leases renewed every 300 ms) stay while the operator's Lease watch is
 * re-established again and again, and a member whose registrar really died still leaves within its
 * lease.
 *
 * <p>The watch is forced to re-establish for real: the operator reaches the API server through a
 * {@link dev.replicapool.testing.TcpProxy} that the test cuts for 2 s, several times. Every
 * connection of the operator closes (its watches included, which fabric8 then re-opens with its
 * backoff) while the registrars, on their own connections, keep renewing. During a cut the operator
 * hears no renewal and can read nothing: silence it must not take for expiry.
 *
 * <p>What the operator holds is read in-process, every 5 ms, from its members gauge (set at every
 * reconcile, even when status cannot be written), so a removal during a cut is seen too.
 */
class LeaseWatchGapIT {
  static final long LEASE = 900;
  static final int CUTS = 4;
  static final Duration CUT = Duration.ofSeconds(2);

  /** Room for the shared 2-core machine on top of lease + 100 ms. */
  static final long TOLERANCE_MILLIS = 400;

  static OperatorHarness h;

  @BeforeAll
  static void start() {
    h = new OperatorHarness("lease-gap", true);
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  ReplicaProcess replica(String name, String host) {
    return h.closeLater(
        ReplicaProcess.startRegistered(
            name, host, h.namespace + "/registry", h.apiServer.kubeConfigFile(), LEASE, 300));
  }

  /** Members of the pool as the operator holds them now, whatever their state. */
  int heldMembers() {
    List<Gauge> gauges =
        h
            .operator
            .metrics()
            .registry()
            .find("replicapool.members")
            .tag("pool", h.namespace + "/registry")
            .gauges()
            .stream()
            .toList();
    return (int) gauges.stream().mapToDouble(Gauge::value).sum();
  }

  @Test
  void liveMembersOutlastWatchGapsAndAKilledOneStillLeavesWithinItsLease() throws Exception {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName("registry");
    pool.getMetadata().setNamespace(h.namespace);
    pool.setSpec(new ReplicaPoolSpec());
    pool.getSpec().registration = new Registration();
    pool.getSpec().healthCheck.enabled = false;
    h.client.resource(pool).create();

    ReplicaProcess r1 = replica("r1", "127.0.0.2");
    replica("r2", "127.0.0.3");
    ReplicaProcess r3 = replica("r3", "127.0.0.4");
    await().atMost(Duration.ofSeconds(30)).until(() -> heldMembers() == 3);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> h.pool("registry").get().getStatus().registered == 3);

    AtomicInteger fewestHeld = new AtomicInteger(Integer.MAX_VALUE);
    AtomicLong goneAtNanos = new AtomicLong();
    // Gone: held members down to this many (none while it is 0).
    AtomicInteger expected = new AtomicInteger(0);
    Thread watcher =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                int held = heldMembers();
                fewestHeld.accumulateAndGet(held, Math::min);
                if (held <= expected.get() && goneAtNanos.get() == 0) {
                  goneAtNanos.set(System.nanoTime());
                }
                try {
                  Thread.sleep(5); // the sampling period of a monitor, not a wait for a state
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "held-members-monitor");
    watcher.setDaemon(true);
    watcher.start();
    try {
      int acceptedBefore = h.link.accepted();
      for (int i = 0; i < CUTS; i++) {
        h.link.cut();
        // The cut lasts CUT, and no member may leave during it.
        await().during(CUT).atMost(CUT.plusSeconds(1)).until(() -> fewestHeld.get() == 3);
        int accepted = h.link.accepted();
        h.link.restore();
        // The operator comes back on new connections (its watches among them), and no member left.
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> h.link.accepted() > accepted && h.link.openConnections() > 0);
        await()
            .during(Duration.ofSeconds(4))
            .atMost(Duration.ofSeconds(6))
            .until(() -> fewestHeld.get() == 3);
      }
      assertThat(h.link.accepted()).as("the operator reconnected").isGreaterThan(acceptedBefore);
      assertThat(fewestHeld.get()).as("fewest members held through %d cuts", CUTS).isEqualTo(3);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> h.pool("registry").get().getStatus().registered == 3);

      int fewestThroughCuts = fewestHeld.get();

      // A registrar that really dies, with the watch live: gone within its lease.
      expected.set(2);
      long killedAt = System.nanoTime();
      r1.kill();
      await().atMost(Duration.ofSeconds(10)).until(() -> goneAtNanos.get() != 0);
      long goneAtMillis =
          System.currentTimeMillis() - (System.nanoTime() - goneAtNanos.get()) / 1_000_000;
      long liveKillToGone = (goneAtNanos.get() - killedAt) / 1_000_000;
      assertThat(heldMembers()).isEqualTo(2);
      // Its last renewal (the registrar shares this machine's clock): the lease ran out at +900.
      long lastRenewal =
          h.client
              .leases()
              .inNamespace(h.namespace)
              .withName(LeaseConventions.leaseName("registry", "r1"))
              .get()
              .getSpec()
              .getRenewTime()
              .toInstant()
              .toEpochMilli();
      long renewalToGone = goneAtMillis - lastRenewal;
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> h.pool("registry").get().getStatus().registered == 2);

      // One that dies as the link is cut: it stays while nothing can be confirmed, and leaves
      // at the first read that confirms its silence once the link is back.
      expected.set(1);
      goneAtNanos.set(0);
      h.link.cut();
      r3.kill();
      long killedInCutAt = System.nanoTime();
      await().during(CUT).atMost(CUT.plusSeconds(1)).until(() -> heldMembers() == 2);
      h.link.restore();
      long restoredAt = System.nanoTime();
      await().atMost(Duration.ofSeconds(10)).until(() -> goneAtNanos.get() != 0);
      long restoreToGone = (goneAtNanos.get() - restoredAt) / 1_000_000;
      long cutKillToGone = (goneAtNanos.get() - killedInCutAt) / 1_000_000;
      assertThat(heldMembers()).isEqualTo(1);

      System.out.printf(
          "FIGURE lease-watch-gap: %d cuts of %d ms, fewest members held %d of 3; killed with the"
              + " watch live: gone %d ms after the kill, %d ms after its last renewal (lease %d"
              + " ms); killed during a cut: gone %d ms after the link came back (%d ms after the"
              + " kill)%n",
          CUTS,
          CUT.toMillis(),
          fewestThroughCuts,
          liveKillToGone,
          renewalToGone,
          LEASE,
          restoreToGone,
          cutKillToGone);
      assertThat(liveKillToGone)
          .as("kill to gone with a live watch")
          .isLessThanOrEqualTo(LEASE + 100 + TOLERANCE_MILLIS);
      assertThat(renewalToGone)
          .as("last renewal to gone with a live watch")
          .isLessThanOrEqualTo(LEASE + 100 + TOLERANCE_MILLIS);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> h.pool("registry").get().getStatus().registered == 1);
    } finally {
      watcher.interrupt();
    }
  }
}
