package dev.replicapool.e2e;

import static dev.replicapool.e2e.FaultSystem.condition;
import static dev.replicapool.e2e.FaultSystem.conditionStatus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.ReplicaPool;
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
 * The operator goes away under steady load and comes back on the same control-plane port (as a
 * restarted Pod behind its Service): the data plane keeps serving its last snapshot, redials, and
 * applies the new operator's snapshots, which start above every version it saw before, and drops a
 * pool deleted while no operator ran.
 */
class FaultOperatorRestartIT {
  static FaultSystem sys;
  static Vertx loadVertx;

  @BeforeAll
  static void start() {
    sys = new FaultSystem("fault-op-restart");
    loadVertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    if (loadVertx != null) {
      loadVertx.close().await();
    }
    sys.close();
  }

  @Test
  void dataPlaneServesItsLastSnapshotWhileTheOperatorRestartsThenResyncs() {
    ReplicaPoolOperator op = sys.startOperator();
    int controlPlanePort = op.controlPlanePort();
    DataPlane dp = sys.startDataPlane("dp-restart", controlPlanePort);
    ReplicaProcess k1 = sys.replica("k1");
    ReplicaProcess k2 = sys.replica("k2");
    sys.create(sys.pool("orders", List.of(k1.address(), k2.address())));
    sys.create(sys.pool("leaving", List.of(k1.address())));
    sys.awaitReadyAndSynced("orders", Duration.ofSeconds(30));
    sys.awaitReadyAndSynced("leaving", Duration.ofSeconds(30));
    long before = sys.versionOn(dp, "orders");
    assertThat(before).isPositive();

    FaultLoad load =
        FaultLoad.start(loadVertx, dp.trafficPort(), "orders.local", 5, 2, 20_000, 5_000);
    await().atMost(Duration.ofSeconds(10)).until(() -> load.ok() >= 100);

    long stoppedAt = System.nanoTime();
    op.close();
    await().atMost(Duration.ofSeconds(10)).until(() -> !dp.controlPlaneConnected());
    int okAtStop = load.ok();
    // Two seconds without an operator: the data plane stays disconnected and keeps serving.
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(3))
        .until(() -> !dp.controlPlaneConnected() && load.failedSoFar() == 0);
    assertThat(load.ok() - okAtStop).as("requests served without an operator").isPositive();
    assertThat(sys.admin(dp, "/readyz").status()).isEqualTo(200);
    // A pool deleted while no operator runs: no one can tell the data plane now.
    sys.pool("leaving").delete();
    assertThat(sys.versionOn(dp, "leaving")).isPositive();

    ReplicaPoolOperator again =
        sys.startOperator(sys.client, sys.operatorConfig().withPorts(controlPlanePort, 0));
    long restartedAt = System.nanoTime();
    await().atMost(Duration.ofSeconds(10)).until(dp::controlPlaneConnected);
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              long now = sys.versionOn(dp, "orders");
              assertThat(now).as("version applied after the restart").isGreaterThan(before);
              ReplicaPool p = sys.pool("orders").get();
              assertThat(conditionStatus(p, "DataPlaneSynced"))
                  .as("DataPlaneSynced: %s", condition(p, "DataPlaneSynced"))
                  .isEqualTo("True");
              // Then, when this operator saw that version converge, how long that took.
              assertThat(condition(p, "DataPlaneSynced").getMessage())
                  .matches(
                      java.util.regex.Pattern.quote("1/1 data planes applied version " + now)
                          + "(; version [0-9]+ reached every data plane [0-9.]+ ms after the"
                          + " change)?");
            });
    long resyncMillis = (System.nanoTime() - restartedAt) / 1_000_000;
    // The new operator published every pool it knows and said so: the data plane drops the one
    // it never heard of.
    await().atMost(Duration.ofSeconds(30)).until(() -> sys.versionOn(dp, "leaving") == -1);
    long after = sys.versionOn(dp, "orders");

    // The new operator is live, not just replayed: a member turning sick reaches the data plane.
    sys.replicaAdmin(k2, "unhealthy");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> FaultSystem.poolOn(sys.status(dp), "orders").getInteger("routable") == 1);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> sys.pool("orders").get().getStatus().routable == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> load.ok() >= okAtStop + 300);

    FaultLoad.Result r = load.stop();
    System.out.printf(
        "FIGURE operator-restart: %s; operator down %.1f s; resync after restart %d ms;"
            + " version %d -> %d%n",
        r, (restartedAt - stoppedAt) / 1e9, resyncMillis, before, after);
    assertThat(r.failed()).as("failed requests: %s", r).isZero();
    assertThat(r.sent()).isGreaterThanOrEqualTo(500);
  }
}
