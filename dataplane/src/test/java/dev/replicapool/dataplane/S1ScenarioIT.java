package dev.replicapool.dataplane;

import static dev.replicapool.dataplane.SnapshotBuilder.pool;
import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberState;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * S1 of docs/SCENARIOS.md on the data plane: 3 replicas, 300 sequential requests, one connection.
 */
class S1ScenarioIT extends DataPlaneTestBase {
  static final String HOST = "tracking.shop.example";

  SnapshotBuilder tracking() {
    return pool("shop/tracking").hosts(HOST);
  }

  @Test
  void allThreeUpSplitExactly100Each() throws Exception {
    TestMember k1 = member("k1");
    TestMember k2 = member("k2");
    TestMember k3 = member("k3");
    startDataPlane();
    publish(tracking().members(k1.snapshot(1), k2.snapshot(1), k3.snapshot(1)));

    Map<String, Integer> counts = sequential(dp.trafficPort(), HOST, 300);

    System.out.println("S1 all three up: " + counts);
    assertThat(counts).containsExactlyInAnyOrderEntriesOf(Map.of("k1", 100, "k2", 100, "k3", 100));
  }

  @Test
  void k2DownByTheOperatorsHealthCheckSplits150Each() throws Exception {
    TestMember k1 = member("k1");
    TestMember k2 = member("k2");
    TestMember k3 = member("k3");
    startDataPlane();
    publish(tracking().members(k1.snapshot(1), k2.snapshot(1), k3.snapshot(1)));
    k2.kill();
    publish(
        tracking().members(k1.snapshot(1), k2.snapshot(0, MemberState.Unhealthy), k3.snapshot(1)));

    Map<String, Integer> counts = sequential(dp.trafficPort(), HOST, 300);

    System.out.println("S1 k2 killed, health check on: " + counts);
    assertThat(counts).containsExactlyInAnyOrderEntriesOf(Map.of("k1", 150, "k3", 150));
    JsonObject pool = poolStatus("shop/tracking");
    assertThat(pool.getInteger("routable")).isEqualTo(2);
  }

  @Test
  void weightZeroMemberReceivesNothing() throws Exception {
    TestMember k1 = member("k1");
    TestMember k2 = member("k2");
    TestMember k3 = member("k3");
    startDataPlane();
    publish(tracking().members(k1.snapshot(1), k2.snapshot(0), k3.snapshot(1)));

    Map<String, Integer> counts = sequential(dp.trafficPort(), HOST, 300);

    assertThat(counts).containsExactlyInAnyOrderEntriesOf(Map.of("k1", 150, "k3", 150));
    assertThat(k2.requests.get()).isZero();
  }

  @Test
  void k2KilledWithoutActiveHealthCheckStill300of300ByRetryAndPassiveEjection() throws Exception {
    TestMember k1 = member("k1");
    TestMember k2 = member("k2");
    TestMember k3 = member("k3");
    startDataPlane();
    // The operator's weights never change: no active check notices anything.
    publish(tracking().members(k1.snapshot(1), k2.snapshot(1), k3.snapshot(1)));
    assertThat(sequential(dp.trafficPort(), HOST, 30)).containsEntry("k2", 10); // pooled to k2
    int k2Before = k2.requests.get();
    k2.kill();

    Map<String, Integer> counts = sequential(dp.trafficPort(), HOST, 300);

    System.out.println("S1 k2 killed, active check off: " + counts);
    assertThat(counts.get("k1") + counts.get("k3")).isEqualTo(300);
    assertThat(counts).containsOnlyKeys("k1", "k3");
    assertThat(k2.requests.get()).isEqualTo(k2Before);

    JsonObject pool = poolStatus("shop/tracking");
    JsonArray ms = pool.getJsonArray("members");
    JsonObject k2Status = ms.getJsonObject(1);
    assertThat(k2Status.getString("address")).endsWith(":" + k2.port);
    assertThat(k2Status.getInteger("ejections")).isGreaterThanOrEqualTo(1);
    assertThat(k2Status.getLong("failures")).isGreaterThanOrEqualTo(5);
    String metrics = adminGet("/metrics").body();
    assertThat(metrics)
        .containsPattern(
            "replicapool_retries_total\\{pool=\"shop/tracking\",reason=\"connect_failure\"\\} [1-9]")
        .containsPattern(
            "replicapool_ejections_total\\{member=\"127.0.0.1:"
                + k2.port
                + "\",pool=\"shop/tracking\"\\} [1-9]");
  }
}
