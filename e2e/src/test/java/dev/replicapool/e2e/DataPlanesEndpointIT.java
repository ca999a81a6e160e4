package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.testing.ReplicaProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator's admin port lists the connected data planes: two of them, of two groups, with the
 * version each applied of a pool, and the reason a data plane gave for refusing a snapshot.
 */
class DataPlanesEndpointIT {
  static SystemHarness h;
  static ReplicaProcess replica;

  @BeforeAll
  static void start() {
    h = new SystemHarness("dpview");
    replica = h.replicas("v1").get(0);
    h.extraDataPlane("dp-edge", "edge", SystemHarness.TOKEN);
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static JsonObject dataPlanes() {
    HttpResponse<String> r = h.operatorAdmin("/dataplanes");
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
    return new JsonObject(r.body());
  }

  static JsonObject byName(JsonObject all, String name) {
    JsonArray list = all.getJsonArray("dataPlanes");
    for (int i = 0; i < list.size(); i++) {
      if (name.equals(list.getJsonObject(i).getString("name"))) {
        return list.getJsonObject(i);
      }
    }
    throw new AssertionError("no data plane " + name + " in " + all.encode());
  }

  ReplicaPool pool(String name, String host) {
    ReplicaPool p = h.pool(name, List.of(replica));
    p.getSpec().route.hosts = List.of(host);
    p.getSpec().dataPlaneGroups = List.of("default", "edge");
    return p;
  }

  @Test
  void listsEachDataPlaneWithItsGroupAppliedVersionsAndWhyItRefusedASnapshot() throws Exception {
    h.client.resource(pool("viewed", "viewed.local")).create();
    h.awaitReadyAndSynced("viewed");
    long version = h.pool("viewed").get().getStatus().snapshotVersion;
    String viewed = h.namespace + "/viewed";

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              JsonObject all = dataPlanes();
              assertThat(all.getJsonArray("dataPlanes")).hasSize(2);
              for (String name : List.of("dp-dpview", "dp-edge")) {
                JsonObject dp = byName(all, name);
                assertThat(dp.getString("group"))
                    .isEqualTo(name.equals("dp-edge") ? "edge" : "default");
                assertThat(dp.getString("remote")).startsWith("127.0.0.1:");
                assertThat(dp.getString("connectedSince")).isNotBlank();
                JsonObject p = dp.getJsonObject("pools").getJsonObject(viewed);
                assertThat(p.getLong("appliedVersion")).isGreaterThanOrEqualTo(version);
                assertThat(p.getBoolean("upToDate")).isTrue();
                assertThat(p.containsKey("rejectedReason")).isFalse();
              }
            });

    // A second pool on the same host: every data plane refuses it, and says why.
    h.client.resource(pool("clash", "viewed.local")).create();
    String clash = h.namespace + "/clash";
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              JsonObject all = dataPlanes();
              for (String name : List.of("dp-dpview", "dp-edge")) {
                JsonObject p = byName(all, name).getJsonObject("pools").getJsonObject(clash);
                assertThat(p.getLong("appliedVersion")).isZero();
                assertThat(p.getBoolean("upToDate")).isFalse();
                assertThat(p.getLong("rejectedVersion")).isEqualTo(p.getLong("latestVersion"));
                assertThat(p.getString("rejectedReason"))
                    .contains("host viewed.local is already routed to pool " + viewed);
              }
            });
    // The refusal is sent again every few seconds, so the last answer is soon that NACK.
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              JsonObject last = byName(dataPlanes(), "dp-edge").getJsonObject("lastAnswer");
              assertThat(last.getString("type")).isEqualTo("nack");
              assertThat(last.getString("pool")).isEqualTo(clash);
              assertThat(last.getString("reason")).contains("already routed");
              assertThat(last.getString("at")).isNotBlank();
            });
    System.out.println("DataPlanesEndpointIT /dataplanes: " + dataPlanes().encodePrettily());
  }
}
