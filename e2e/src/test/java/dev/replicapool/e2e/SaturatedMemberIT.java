package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.ReplicaProcess;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Saturation through the whole system, with real replica processes of a fixed capacity (the sample
 * replica's {@code --workers 4 --service-ms 5}, reporting their load on every answer) behind an
 * Adaptive pool with {@code healthCheck.degradedUtilization: 0.8}, under steady load through the
 * data plane. A client that does not pass through the proxy makes one member busy: the data plane
 * reads its reports in-band and sends it little, the operator's probes read them too and mark it
 * Degraded for saturation; when that client stops, the member recovers after the pool's hold and
 * gets its share back.
 */
class SaturatedMemberIT {
  static FaultSystem sys;
  static Vertx loadVertx;
  static ReplicaPoolOperator op;
  static DataPlane dp;
  static List<ReplicaProcess> replicas;

  @BeforeAll
  static void start() {
    sys = new FaultSystem("saturated-member");
    loadVertx = Vertx.vertx();
    op = sys.startOperator();
    dp = sys.startDataPlane("dp-saturated", op.controlPlanePort(), s -> s);
    replicas =
        List.of("a", "b", "busy").parallelStream()
            .map(n -> sys.replica(n, "--workers", "4", "--service-ms", "5"))
            .toList();
  }

  @AfterAll
  static void stop() {
    loadVertx.close().await();
    sys.close();
  }

  @Test
  void aMemberBusyWithAnotherClientIsAvoidedAndDegradedForSaturationThenRecovers() {
    ReplicaPool pool =
        sys.pool("saturated", replicas.stream().map(ReplicaProcess::address).toList());
    pool.getSpec().routing.policy = RoutingPolicy.Adaptive;
    pool.getSpec().healthCheck.degradedUtilization = 0.8;
    // Probes a busy CI machine does not fail: saturation, not a timeout, is what is tested.
    pool.getSpec().healthCheck.intervalMillis = 300;
    pool.getSpec().healthCheck.timeoutMillis = 250;
    pool.getSpec().healthCheck.unhealthyThreshold = 3;
    pool.getSpec().routing.adaptive.recoverAfterMillis = 1_000;
    sys.createAndAwaitAllRoutable(pool, dp);
    ReplicaProcess busy = replicas.get(2);

    try (FaultLoad load =
        FaultLoad.start(loadVertx, dp.trafficPort(), "saturated.local", 2, 4, 10_000_000, 5_000)) {
      assertThat(busyShare(load, 300)).as("a member like the others").isGreaterThan(0.15);

      // Eight clients in a closed loop against four workers: the member's queue never empties.
      FaultLoad other =
          FaultLoad.start(loadVertx, busy.port(), "busy.direct", 1, 8, 10_000_000, 10_000);
      try {
        await()
            .atMost(Duration.ofSeconds(20))
            .untilAsserted(
                () -> {
                  EndpointStatus row = row(busy);
                  assertThat(row.state).as(row.message).isEqualTo(MemberState.Degraded);
                  assertThat(row.message).startsWith("saturated: utilization");
                  assertThat(row.utilization).isGreaterThanOrEqualTo(0.8);
                });
        assertThat(FaultSystem.condition(sys.pool("saturated").get(), "Degraded").getReason())
            .isEqualTo("EndpointSaturated");
        double share = busyShare(load, 300);
        System.out.printf("FIGURE saturated member's share of the proxy's answers: %.3f%n", share);
        assertThat(share).as("the saturated member's share").isLessThan(0.1);
      } finally {
        other.stop();
      }

      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(() -> assertThat(row(busy).state).isEqualTo(MemberState.Healthy));
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> assertThat(busyShare(load, 300)).as("its share back").isGreaterThan(0.15));
      assertThat(load.failedSoFar()).as("failed requests through the proxy").isZero();
    }
  }

  static EndpointStatus row(ReplicaProcess member) {
    return sys.pool("saturated").get().getStatus().endpoints.stream()
        .filter(e -> e.address.equals(member.address()))
        .findFirst()
        .orElseThrow();
  }

  /** The busy member's share of the next {@code answers} answers through the proxy. */
  static double busyShare(FaultLoad load, int answers) {
    Map<String, Integer> before = load.byReplicaNow();
    int okBefore = load.ok();
    await().atMost(Duration.ofSeconds(20)).until(() -> load.ok() >= okBefore + answers);
    Map<String, Integer> after = load.byReplicaNow();
    int total = 0;
    for (Map.Entry<String, Integer> e : after.entrySet()) {
      total += e.getValue() - before.getOrDefault(e.getKey(), 0);
    }
    int busy = after.getOrDefault("busy", 0) - before.getOrDefault("busy", 0);
    return total == 0 ? 0 : (double) busy / total;
  }
}
