package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.ReplicaProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * S1 of docs/SCENARIOS.md through the real stack: three replicas, a 200 ms health check where one
 * failed round marks a replica down, 300 sequential requests over one keep-alive connection.
 */
class ScenarioS1IT {
  static SystemHarness h;
  static final List<ReplicaProcess> k = new ArrayList<>();

  @BeforeAll
  static void start() {
    h = new SystemHarness("s1");
    k.addAll(h.replicas("k1", "k2", "k3"));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static ReplicaPool pool(String name, boolean activeChecks) {
    ReplicaPool pool = h.pool(name, k);
    pool.getSpec().healthCheck.enabled = activeChecks;
    pool.getSpec().routing.adaptive.recoverAfterMillis = 2_000;
    return pool;
  }

  @Test
  void roundRobinSplitsExactlyAndSurvivesAKilledReplica() {
    h.client.resource(pool("checked", true)).create();
    h.client.resource(pool("unchecked", false)).create();
    h.awaitReadyAndSynced("checked");
    h.awaitReadyAndSynced("unchecked");

    // All three up: exactly 100 each.
    // "All three up" means Healthy at full weight: on a loaded machine a first probe can miss its
    // 100 ms timeout, and the member then comes back through slow start (2 s hold here).
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(h.pool("checked").get().getStatus().endpoints)
                    .allSatisfy(
                        e -> {
                          assertThat(e.state).isEqualTo(MemberState.Healthy);
                          assertThat(e.weight).isEqualTo(1.0);
                        }));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> assertThat(fullWeightOnDataPlane(h.dataPlaneStatus(), "checked")).isEqualTo(3));
    TreeMap<String, Integer> allUp = h.sequential("checked.local", 300);
    System.out.println("S1 all three up:                  " + allUp);
    assertThat(allUp).isEqualTo(new TreeMap<>(Map.of("k1", 100, "k2", 100, "k3", 100)));
    assertThat(h.trafficConnections()).as("all 300 over one keep-alive connection").isEqualTo(1);

    // k2 dies without a word.
    k.get(1).kill();

    // Health check on: once the probe saw it, k1 and k3 split 150/150.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(h.pool("checked").get().getStatus().routable).isEqualTo(2));
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> assertThat(routableOnDataPlane(h.dataPlaneStatus(), "checked")).isEqualTo(2));
    TreeMap<String, Integer> checked = h.sequential("checked.local", 300);
    System.out.println("S1 k2 killed, health check on:    " + checked);
    assertThat(checked).isEqualTo(new TreeMap<>(Map.of("k1", 150, "k3", 150)));

    // Health check off: the operator never learns, the data plane's retry and passive ejection
    // still answer every request (the reference round-robin script lost 100 of 300 here).
    TreeMap<String, Integer> unchecked = h.sequential("unchecked.local", 300);
    System.out.println("S1 k2 killed, health check off:   " + unchecked);
    assertThat(unchecked.keySet()).as("no failed request: %s", unchecked).containsOnly("k1", "k3");
    assertThat(unchecked.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(300);

    // What kubectl shows agrees with the data plane.
    Kubectl.Result get = h.kubectl.run("get", "rp", "checked", "-n", h.namespace, "--no-headers");
    assertThat(get.stdout().trim().split("\\s+"))
        .startsWith("checked", "True", "3", "2", "0", "RoundRobin");
  }

  /** Members of a pool at weight 1.0 in the data plane's /status. */
  static int fullWeightOnDataPlane(JsonObject status, String poolName) {
    JsonArray pools = status.getJsonArray("pools");
    for (int i = 0; i < pools.size(); i++) {
      JsonObject p = pools.getJsonObject(i);
      if (p.getString("name").endsWith("/" + poolName)) {
        JsonArray members = p.getJsonArray("members");
        int n = 0;
        for (int j = 0; j < members.size(); j++) {
          if (members.getJsonObject(j).getDouble("weight") == 1.0) {
            n++;
          }
        }
        return n;
      }
    }
    return -1;
  }

  /** The data plane's own count of a pool's routable members, from its /status. */
  static int routableOnDataPlane(JsonObject status, String poolName) {
    JsonArray pools = status.getJsonArray("pools");
    for (int i = 0; i < pools.size(); i++) {
      JsonObject p = pools.getJsonObject(i);
      if (p.getString("name").endsWith("/" + poolName)) {
        return p.getInteger("routable");
      }
    }
    return -1;
  }
}
