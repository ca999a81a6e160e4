package dev.replicapool.e2e;

import static dev.replicapool.e2e.FaultSystem.condition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.operator.OperatorConfig;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.ReplicaProcess;
import dev.replicapool.testing.TcpProxy;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.vertx.core.Vertx;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two operator replicas elect a leader on a Lease of the real API server (JOSDK leader election,
 * in-process with identities of their own). Only the leader reconciles and holds snapshots, so a
 * data plane connected to the follower has nothing and is not ready. Stopping the leader (a rolling
 * update, a drained node) lets the follower take over and push within one lease duration, while the
 * data plane of the old leader keeps serving what it has.
 */
class FaultLeaderElectionIT {
  /** ReplicaPoolOperator's lease duration. */
  static final Duration LEASE = Duration.ofSeconds(15);

  static FaultSystem sys;
  static Vertx loadVertx;

  @BeforeAll
  static void start() {
    sys = new FaultSystem("fault-leader");
    loadVertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    loadVertx.close().await();
    sys.close();
  }

  OperatorConfig replica(String identity) {
    return replica(sys, identity);
  }

  static OperatorConfig replica(FaultSystem s, String identity) {
    return s.operatorConfig().withLeaderElection(s.namespace).withLeaderIdentity(identity, false);
  }

  @Test
  void followerTakesOverAndPushesWithinOneLeaseDurationWhenTheLeaderStops() {
    ReplicaPoolOperator a = sys.startOperator(sys.client, replica("operator-a"));
    await().atMost(LEASE.plusSeconds(15)).until(a::isLeader);
    ReplicaPoolOperator b = sys.startOperator(sys.client, replica("operator-b"));
    DataPlane dpA = sys.startDataPlane("dp-a", a.controlPlanePort());
    DataPlane dpB = sys.startDataPlane("dp-b", b.controlPlanePort());
    ReplicaProcess k1 = sys.replica("k1");
    ReplicaProcess k2 = sys.replica("k2");
    sys.create(sys.pool("orders", List.of(k1.address(), k2.address())));
    sys.awaitReadyAndSynced("orders", Duration.ofSeconds(30));

    // The follower: not ready, holds nothing; its data plane has no snapshot.
    assertThat(b.isLeader()).isFalse();
    assertThat(sys.httpGet(a.adminPort(), "127.0.0.1", "/readyz").status()).isEqualTo(200);
    assertThat(sys.httpGet(b.adminPort(), "127.0.0.1", "/readyz").status()).isEqualTo(503);
    assertThat(sys.admin(dpB, "/readyz").status()).isEqualTo(503);
    assertThat(leaseHolder()).isEqualTo("operator-a");
    assertThat(condition(sys.pool("orders").get(), "DataPlaneSynced").getMessage())
        .startsWith("1/1 data planes");

    FaultLoad load =
        FaultLoad.start(loadVertx, dpA.trafficPort(), "orders.local", 5, 2, 20_000, 5_000);
    await().atMost(Duration.ofSeconds(10)).until(() -> load.ok() >= 100);

    long stoppedAt = System.nanoTime();
    a.close();
    await().atMost(LEASE.plusSeconds(5)).pollInterval(Duration.ofMillis(50)).until(b::isLeader);
    long leadMillis = (System.nanoTime() - stoppedAt) / 1_000_000;
    await()
        .atMost(LEASE.plusSeconds(5))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> sys.admin(dpB, "/readyz").status() == 200);
    long pushedMillis = (System.nanoTime() - stoppedAt) / 1_000_000;
    assertThat(sys.httpGet(b.adminPort(), "127.0.0.1", "/readyz").status()).isEqualTo(200);
    assertThat(leaseHolder()).isEqualTo("operator-b");
    assertThat(sys.httpGet(dpB.trafficPort(), "orders.local", "/track/1").status()).isEqualTo(200);
    // The new leader writes status: its data plane is the one that counts now.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(condition(sys.pool("orders").get(), "DataPlaneSynced").getMessage())
                    .startsWith("1/1 data planes applied version " + sys.versionOn(dpB, "orders")));
    int okAfter = load.ok();
    await().atMost(Duration.ofSeconds(10)).until(() -> load.ok() >= okAfter + 100);

    FaultLoad.Result r = load.stop();
    System.out.printf(
        "FIGURE leader-election: leader closed; follower leads after %d ms, its data plane ready"
            + " (first snapshot) after %d ms (lease %d s); through the old leader's data plane"
            + " %s%n",
        leadMillis, pushedMillis, LEASE.toSeconds(), r);
    assertThat(pushedMillis).isLessThanOrEqualTo(LEASE.toMillis() + 2_000);
    assertThat(r.failed()).as("failed requests: %s", r).isZero();
  }

  private String leaseHolder() {
    return leaseHolder(sys);
  }

  private static String leaseHolder(FaultSystem s) {
    Lease lease =
        s.client.leases().inNamespace(s.namespace).withName(OperatorConfig.LEADER_LEASE_NAME).get();
    return lease == null ? null : lease.getSpec().getHolderIdentity();
  }

  /**
   * The leader does not stop but loses the API server (a partition, a hung node: the closest to a
   * crash an in-process operator gets; it cannot release the Lease). The follower may take over
   * only once the lease expired; it then pushes. The cut-off leader gives up the lead after the
   * renew deadline (10 s) and stops reporting ready; in production it then exits (exitOnLostLead),
   * here the test closes it.
   */
  @Test
  void followerTakesOverAfterTheLeaseWhenTheLeaderIsCutOff() {
    FaultSystem s = new FaultSystem("fault-leader-cut");
    KubernetesClient viaLink = null;
    try {
      Config direct = Config.fromKubeconfig(s.apiServer.kubeConfigYaml());
      URI api = URI.create(direct.getMasterUrl());
      TcpProxy link = s.closeLater(TcpProxy.start(api.getHost(), api.getPort()));
      Config linked = Config.fromKubeconfig(s.apiServer.kubeConfigYaml());
      linked.setMasterUrl("https://127.0.0.1:" + link.port());
      viaLink = new KubernetesClientBuilder().withConfig(linked).build();

      ReplicaPoolOperator a = s.startOperator(viaLink, replica(s, "operator-a"));
      await().atMost(LEASE.plusSeconds(15)).until(a::isLeader);
      ReplicaPoolOperator b = s.startOperator(s.client, replica(s, "operator-b"));
      DataPlane dpB = s.startDataPlane("dp-b", b.controlPlanePort());
      FaultTcpMember member = s.closeLater(FaultTcpMember.silent());
      s.create(s.pool("orders", List.of(member.address())));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> s.pool("orders").get().getStatus() != null);
      assertThat(s.admin(dpB, "/readyz").status()).isEqualTo(503);

      long cutAt = System.nanoTime();
      link.cut();
      await().atMost(LEASE.plusSeconds(10)).pollInterval(Duration.ofMillis(100)).until(b::isLeader);
      long leadMillis = (System.nanoTime() - cutAt) / 1_000_000;
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> s.admin(dpB, "/readyz").status() == 200);
      long pushedMillis = (System.nanoTime() - cutAt) / 1_000_000;
      await().atMost(Duration.ofSeconds(10)).until(() -> !a.isLeader());
      assertThat(s.httpGet(a.adminPort(), "127.0.0.1", "/readyz").status()).isEqualTo(503);
      assertThat(leaseHolder(s)).isEqualTo("operator-b");
      System.out.printf(
          "FIGURE leader-cut-off: follower leads %d ms after the leader lost the API server,"
              + " its data plane has the snapshot after %d ms (lease %d s, retry 2 s)%n",
          leadMillis, pushedMillis, LEASE.toSeconds());
      assertThat(leadMillis).isGreaterThanOrEqualTo(LEASE.toMillis() - 2_500);
      assertThat(pushedMillis).isLessThanOrEqualTo(LEASE.toMillis() + 5_000);
    } finally {
      s.close();
      if (viaLink != null) {
        viaLink.close();
      }
    }
  }
}
