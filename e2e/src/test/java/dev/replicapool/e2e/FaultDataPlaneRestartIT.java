package dev.replicapool.e2e;

import static dev.replicapool.e2e.FaultSystem.condition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.ReplicaProcess;
import dev.replicapool.testing.TcpProxy;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One of two data planes restarts while the other carries the load. The restarted one must say "not
 * ready" until its first snapshot: a Service routes only to ready data planes, and one without a
 * routing table would answer 404 to everything. To see that window for certain, its way to the
 * operator goes through a {@link TcpProxy} that the test holds shut for a while.
 */
class FaultDataPlaneRestartIT {
  static FaultSystem sys;
  static Vertx loadVertx;

  @BeforeAll
  static void start() {
    sys = new FaultSystem("fault-dp-restart");
    loadVertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    loadVertx.close().await();
    sys.close();
  }

  @Test
  void restartedDataPlaneIsUnreadyUntilItsFirstSnapshotWhileTheOtherServes() {
    ReplicaPoolOperator op = sys.startOperator();
    TcpProxy gate = sys.closeLater(TcpProxy.start("127.0.0.1", op.controlPlanePort()));
    DataPlane first = sys.startDataPlane("dp-a", gate.port());
    DataPlane second = sys.startDataPlane("dp-b", op.controlPlanePort());
    ReplicaProcess k1 = sys.replica("k1");
    ReplicaProcess k2 = sys.replica("k2");
    sys.create(sys.pool("orders", List.of(k1.address(), k2.address())));
    sys.awaitReadyAndSynced("orders", Duration.ofSeconds(30));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                condition(sys.pool("orders").get(), "DataPlaneSynced")
                    .getMessage()
                    .startsWith("2/2 data planes"));

    FaultLoad load =
        FaultLoad.start(loadVertx, second.trafficPort(), "orders.local", 5, 2, 20_000, 5_000);
    await().atMost(Duration.ofSeconds(10)).until(() -> load.ok() >= 100);

    sys.stopDataPlane(first);
    gate.cut();
    DataPlane restarted = sys.startDataPlane("dp-a", gate.port());
    long startedAt = System.nanoTime();
    // No snapshot yet: not ready, and the traffic port knows no pool.
    FaultSystem.Reply readyz = sys.admin(restarted, "/readyz");
    assertThat(readyz.status()).isEqualTo(503);
    assertThat(readyz.body()).contains("waiting for the first snapshot");
    FaultSystem.Reply early = sys.httpGet(restarted.trafficPort(), "orders.local", "/track/1");
    assertThat(early.status()).as("before any snapshot: %s", early).isEqualTo(404);
    // Unready for 2 s in a row; atMost leaves room for slow admin calls on a loaded machine.
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(10))
        .until(() -> sys.admin(restarted, "/readyz").status() == 503);
    long unreadyMillis = (System.nanoTime() - startedAt) / 1_000_000;

    gate.restore();
    long openedAt = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> sys.admin(restarted, "/readyz").status() == 200);
    long readyMillis = (System.nanoTime() - openedAt) / 1_000_000;
    // The two reads are not atomic: a snapshot the operator publishes between them tells them
    // apart for a moment, so wait for the same version on both.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(sys.versionOn(restarted, "orders"))
                    .isEqualTo(sys.versionOn(second, "orders")));
    assertThat(sys.httpGet(restarted.trafficPort(), "orders.local", "/track/2").status())
        .isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                condition(sys.pool("orders").get(), "DataPlaneSynced")
                    .getMessage()
                    .startsWith("2/2 data planes"));

    FaultLoad.Result r = load.stop();
    System.out.printf(
        "FIGURE dataplane-restart: through the other data plane %s; restarted one unready for"
            + " %d ms (held: control plane unreachable), ready %d ms after the control plane"
            + " became reachable%n",
        r, unreadyMillis, readyMillis);
    assertThat(r.failed()).as("failed requests: %s", r).isZero();
  }
}
