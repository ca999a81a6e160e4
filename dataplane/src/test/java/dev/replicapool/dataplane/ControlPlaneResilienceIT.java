package dev.replicapool.dataplane;

import static dev.replicapool.dataplane.SnapshotBuilder.pool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.replicapool.controlplane.ControlPlaneServer;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ControlPlaneResilienceIT extends DataPlaneTestBase {
  static final String HOST = "tracking.shop.example";

  @Test
  void readyOnlyAfterTheFirstSnapshotAndStatusTellsWhatItServes() throws Exception {
    TestMember k1 = member("k1");
    startDataPlane();
    assertThat(adminGet("/healthz").statusCode()).isEqualTo(200);
    assertThat(adminGet("/readyz").statusCode()).isEqualTo(503);
    assertThat(status().getBoolean("ready")).isFalse();

    var s = publish(pool("shop/tracking").hosts(HOST).members(k1.snapshot(0.5)));

    assertThat(adminGet("/readyz").statusCode()).isEqualTo(200);
    JsonObject status = status();
    assertThat(status.getJsonObject("controlPlane").getBoolean("connected")).isTrue();
    JsonObject pool = poolStatus("shop/tracking");
    assertThat(pool.getLong("version")).isEqualTo(s.version());
    assertThat(pool.getString("policy")).isEqualTo("RoundRobin");
    JsonObject m = pool.getJsonArray("members").getJsonObject(0);
    assertThat(m.getString("address")).isEqualTo("127.0.0.1:" + k1.port);
    assertThat(m.getDouble("weight")).isEqualTo(0.5);
    assertThat(m.getString("state")).isEqualTo("Healthy");
    assertThat(m.getBoolean("ejected")).isFalse();
    assertThat(adminGet("/metrics").body())
        .contains("replicapool_snapshot_version{pool=\"shop/tracking\"} " + (double) s.version())
        .contains("replicapool_control_plane_connected 1.0")
        .contains("replicapool_client_connections ")
        .contains("replicapool_client_connections_refused_total 0.0")
        .doesNotContain(TOKEN);
    sequential(dp.trafficPort(), HOST, 3);
    // A request is counted as its exchange ends, which may be just after the client read the
    // answer: awaited, not read once.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(adminGet("/metrics").body())
                    .containsPattern(
                        "replicapool_requests_seconds_count\\{code=\"2xx\",pool=\"shop/tracking\"\\} 3")
                    .containsPattern(
                        "replicapool_upstream_seconds_count\\{member=\"127.0.0.1:"
                            + k1.port
                            + "\",outcome=\"2xx\",pool=\"shop/tracking\"\\} 3"));
  }

  /**
   * With a warm-up asked for, the first snapshot is not enough: /readyz says why it waits until the
   * warm-up (as DataPlaneMain runs it: the training traffic through a loopback copy in the same
   * Vert.x) is over, and the copy's requests leave no trace in this data plane's metrics.
   */
  @Test
  void withAWarmUpReadyWaitsForItAndTheWarmUpLeavesNoTrace() throws Exception {
    TestMember k1 = member("k1");
    startDataPlane(settings().withWarmUpMillis(500));
    publish(pool("shop/tracking").hosts(HOST).members(k1.snapshot(1)));
    assertThat(sequential(dp.trafficPort(), HOST, 2)).containsExactly(Map.entry("k1", 2));
    var waiting = adminGet("/readyz");
    assertThat(waiting.statusCode()).isEqualTo(503);
    assertThat(waiting.body()).contains("warming up its request paths");
    assertThat(status().getBoolean("warmingUp")).isTrue();
    assertThat(status().getBoolean("ready")).isFalse();

    long start = System.nanoTime();
    int routed = dev.replicapool.dataplane.training.WarmUp.run(vertx, 500);
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(500);
    assertThat(routed).isPositive(); // each answered by its member, or it throws
    dp.warmedUp();

    assertThat(adminGet("/readyz").statusCode()).isEqualTo(200);
    assertThat(status().getBoolean("warmingUp")).isFalse();
    assertThat(status().getJsonArray("pools")).hasSize(1);
    assertThat(adminGet("/metrics").body()).contains("shop/tracking").doesNotContain("training/");
  }

  @Test
  void readyWithoutAnyPoolOnceTheControlPlaneSaysItSentEverything() throws Exception {
    startDataPlane();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> status().getJsonObject("controlPlane").getBoolean("connected"));
    assertThat(adminGet("/readyz").statusCode()).isEqualTo(503);

    // An operator with no pools at all: the data plane is as current as it can be.
    cp.markInitialSyncDone();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(adminGet("/readyz").statusCode()).isEqualTo(200));
    assertThat(status().getJsonArray("pools")).isEmpty();
  }

  @Test
  void keepsRoutingWithoutTheControlPlaneAndResyncsWhenItReturns() throws Exception {
    TestMember k1 = member("k1");
    TestMember k2 = member("k2");
    startDataPlane();
    publish(pool("shop/tracking").hosts(HOST).members(k1.snapshot(1), k2.snapshot(1)));
    int cpPort = cp.port();

    cp.stop().await();
    await().atMost(WAIT).until(() -> !dp.controlPlaneConnected());
    assertThat(sequential(dp.trafficPort(), HOST, 10))
        .containsExactlyInAnyOrderEntriesOf(Map.of("k1", 5, "k2", 5));
    assertThat(status().getJsonObject("controlPlane").getBoolean("connected")).isFalse();
    assertThat(adminGet("/readyz").statusCode()).isEqualTo(200);

    // A new operator process on the same port, where k2 is now down.
    cp = new ControlPlaneServer(vertx, new ControlPlaneServer.Options("127.0.0.1", cpPort, TOKEN));
    cp.start().await();
    cp.publish(
        pool("shop/tracking")
            .hosts(HOST)
            .members(k1.snapshot(1), k2.snapshot(0))
            .version(cp.nextVersion("shop/tracking")));
    await().atMost(WAIT).until(() -> cp.syncState("shop/tracking").synced());
    assertThat(dp.controlPlaneConnected()).isTrue();
    assertThat(sequential(dp.trafficPort(), HOST, 10)).containsExactly(Map.entry("k1", 10));
  }

  @Test
  void anInvalidSnapshotIsNackedAndThePreviousOneKeepsServing() throws Exception {
    TestMember k1 = member("k1");
    TestMember k2 = member("k2");
    startDataPlane();
    publish(pool("shop/tracking").hosts(HOST).members(k1.snapshot(1)));
    publish(pool("shop/other").hosts("other.shop.example").members(k2.snapshot(1)));

    String duplicateHost = publishRejected(pool("shop/other").hosts(HOST).members(k2.snapshot(1)));
    assertThat(duplicateHost).contains("host " + HOST + " is already routed to pool shop/tracking");
    String badWeight = publishRejected(pool("shop/tracking").hosts(HOST).members(k1.snapshot(7)));
    assertThat(badWeight).contains("weight must be within 0..1");
    String twice =
        publishRejected(pool("shop/tracking").hosts(HOST).members(k1.snapshot(1), k1.snapshot(1)));
    assertThat(twice).contains("listed twice");

    assertThat(sequential(dp.trafficPort(), HOST, 4)).containsExactly(Map.entry("k1", 4));
    assertThat(sequential(dp.trafficPort(), "other.shop.example", 4))
        .containsExactly(Map.entry("k2", 4));
  }

  @Test
  void removedPoolStopsRouting() throws Exception {
    TestMember k1 = member("k1");
    startDataPlane();
    publish(pool("shop/tracking").hosts(HOST).members(k1.snapshot(1)));
    assertThat(sequential(dp.trafficPort(), HOST, 2)).containsExactly(Map.entry("k1", 2));
    cp.remove("shop/tracking");
    await().atMost(WAIT).until(() -> cp.syncState("shop/tracking").synced());
    assertThat(sequential(dp.trafficPort(), HOST, 2)).containsExactly(Map.entry("status 404", 2));
    assertThat(poolStatus("shop/tracking")).isNull();
  }

  @Test
  void stopDrainsInflightRequestsAndRefusesNewOnes() throws Exception {
    TestMember slow = member("slow");
    slow.delayMillis = 800;
    startDataPlane();
    publish(pool("shop/tracking").hosts(HOST).members(slow.snapshot(1)));
    int port = dp.trafficPort();
    CompletableFuture<RawHttp.Response> inflight =
        CompletableFuture.supplyAsync(
            () -> {
              try (RawHttp c = RawHttp.connect(port)) {
                return c.get(HOST, "/slow");
              } catch (Exception e) {
                throw new RuntimeException(e);
              }
            });
    await().atMost(WAIT).until(() -> slow.requests.get() == 1);

    var stopping = dp.stop().toCompletionStage().toCompletableFuture();
    RawHttp.Response r = inflight.get(10, TimeUnit.SECONDS);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("x-replica")).isEqualTo("slow");
    stopping.get(10, TimeUnit.SECONDS);
    dp = null;
    assertThatThrownBy(() -> new java.net.Socket("127.0.0.1", port).close())
        .as("new connections are refused after stop")
        .isInstanceOf(java.io.IOException.class);
  }
}
