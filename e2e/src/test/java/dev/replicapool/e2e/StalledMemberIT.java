package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.Hedging;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.ReplicaProcess;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A member that accepts requests and then stalls (SIGSTOP of a real replica process) under steady
 * load, with the operator probing (every 500 ms) and marking it Unhealthy: with hedging, the
 * requests already sent to it get their answer from another member after the hedge delay; without
 * it (the control), those requests wait out the stall, which shows the stall is real.
 */
class StalledMemberIT {
  static FaultSystem sys;
  static Vertx loadVertx;
  static ReplicaPoolOperator op;
  static DataPlane dp;
  static List<ReplicaProcess> replicas;

  /** Requests the load sends while the member is stalled: at 2 ms apart, at least 2 s of stall. */
  static final int SENT_WHILE_STALLED = 1_000;

  @BeforeAll
  static void start() {
    sys = new FaultSystem("stalled-member");
    loadVertx = Vertx.vertx();
    op = sys.startOperator();
    dp = sys.startDataPlane("dp-stalled", op.controlPlanePort(), s -> s);
    replicas = sys.replicas("s1", "s2", "stuck");
  }

  @AfterAll
  static void stop() {
    loadVertx.close().await();
    sys.close();
  }

  ReplicaPool pool(String name, Long hedgeDelayMillis) {
    ReplicaPool pool = sys.pool(name, replicas.stream().map(ReplicaProcess::address).toList());
    // Probes that a busy CI machine does not fail for the healthy members: the stalled one is
    // still marked Unhealthy within about a second, and the hedges cover the time until then.
    pool.getSpec().healthCheck.intervalMillis = 500;
    pool.getSpec().healthCheck.timeoutMillis = 400;
    pool.getSpec().healthCheck.unhealthyThreshold = 2;
    if (hedgeDelayMillis != null) {
      // Adaptive: the balancer learns from each hedged-out try that the member is slow and sends
      // it little, so few hedges are needed and they stay within the pool's retry budget (20 %).
      // Under RoundRobin a third of the requests need a hedge until the operator marks it down.
      pool.getSpec().routing.policy = RoutingPolicy.Adaptive;
      pool.getSpec().routing.hedging = new Hedging();
      pool.getSpec().routing.hedging.delayMillis = hedgeDelayMillis;
    } else {
      // The control must send the stalled member a request for certain: RoundRobin gives it every
      // third one. Adaptive gave it about 1 % at sub-millisecond latencies, and once none at all
      // during the stall, which proved nothing.
      pool.getSpec().routing.policy = RoutingPolicy.RoundRobin;
    }
    return pool;
  }

  /** When a stall ends, from what the load sent and the time since the member stalled. */
  interface StallEnd {
    boolean reached(int sentSinceStall, long millisSinceStall);
  }

  /**
   * Steady load on the pool; the third replica stalls while it runs, then resumes at {@code end}.
   */
  FaultLoad.Result stallUnderLoad(String name, StallEnd end) {
    FaultLoad load =
        FaultLoad.start(loadVertx, dp.trafficPort(), name + ".local", 2, 8, 100_000, 10_000);
    // Two seconds of traffic first: the retry budget is a share of the last ten seconds' requests.
    await().atMost(Duration.ofSeconds(20)).until(() -> load.ok() >= 1_000);
    ReplicaProcess stuck = replicas.get(2);
    stuck.freeze();
    long stalledAt = System.nanoTime();
    int sentAtStall = load.sent();
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  end.reached(
                      load.sent() - sentAtStall, (System.nanoTime() - stalledAt) / 1_000_000));
    } finally {
      stuck.thaw();
    }
    long stalledMillis = (System.nanoTime() - stalledAt) / 1_000_000;
    FaultLoad.Result r = load.stop();
    System.out.printf(
        "FIGURE stalled-member %s: member stalled %d ms; %s; p50 %d ms, p99 %d ms, p99.9 %d ms, max %d ms%n",
        name,
        stalledMillis,
        r,
        r.percentileMillis(50),
        r.percentileMillis(99),
        r.percentileMillis(99.9),
        r.percentileMillis(100));
    assertThat(stalledMillis).isGreaterThanOrEqualTo(1_500);
    return r;
  }

  @Test
  void withHedgingTheRequestsSentToTheStalledMemberAreAnsweredByAnother() {
    sys.createAndAwaitAllRoutable(pool("hedged", 25L), dp);
    FaultLoad.Result r = stallUnderLoad("hedged", (sent, millis) -> sent >= SENT_WHILE_STALLED);
    assertThat(r.failed()).isZero();
    assertThat(r.percentileMillis(99))
        .as("p99 (50 ms on a quiet machine, docs/BENCHMARKS.md)")
        .isLessThan(300);
    assertThat(r.percentileMillis(100)).isLessThan(1_000);
  }

  @Test
  void withoutHedgingTheRequestsSentToTheStalledMemberWaitItOut() {
    sys.createAndAwaitAllRoutable(pool("unhedged", null), dp);
    // By the clock: the load's 8 in flight soon all wait on the stalled member, so it stops
    // sending and could never reach SENT_WHILE_STALLED.
    FaultLoad.Result r = stallUnderLoad("unhedged", (sent, millis) -> millis >= 2_000);
    assertThat(r.percentileMillis(100))
        .as("the slowest request waited out the stall: %s", r)
        .isGreaterThanOrEqualTo(1_000);
  }
}
