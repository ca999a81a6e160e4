package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.api.v1alpha1.SlowStart;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.testing.ReplicaPools;
import dev.replicapool.testing.ReplicaProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scale-up with slow start: a fourth member joins a pool of three routable ones, and its share of
 * sequential requests climbs over the window instead of jumping to a quarter at once.
 */
class ScenarioSlowStartIT {
  static final long WINDOW_MILLIS = 8_000;
  static SystemHarness h;
  static final List<ReplicaProcess> k = new ArrayList<>();

  @BeforeAll
  static void start() {
    h = new SystemHarness("slow-start");
    for (String name : List.of("k1", "k2", "k3", "k4")) {
      k.add(
          h.closeLater(
              ReplicaProcess.start(name, "127.0.0.1", ReplicaProcess.freePort("127.0.0.1"))));
    }
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void aJoiningMembersShareClimbsOverTheWindow() {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName("ramp");
    pool.getMetadata().setNamespace(h.namespace);
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.endpoints = new ArrayList<>();
    k.subList(0, 3).forEach(r -> spec.endpoints.add(new StaticEndpoint(r.host(), r.port())));
    spec.route = new Route();
    spec.route.hosts = List.of("ramp.local");
    spec.healthCheck.intervalMillis = 200;
    spec.healthCheck.timeoutMillis = 100;
    spec.routing.slowStart = new SlowStart();
    spec.routing.slowStart.windowMillis = WINDOW_MILLIS;
    pool.setSpec(spec);
    h.client.resource(pool).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> ScenarioS1IT.fullWeightOnDataPlane(h.dataPlaneStatus(), "ramp") == 3);
    assertThat(effectiveWeight("k1")).as("members of the first snapshot: no ramp").isEqualTo(1.0);

    // Scale-up: k4 joins; it is Pending until its first probe passes, then it ramps.
    ReplicaPools.editSpec(
        h.pool("ramp"),
        p -> {
          p.getSpec().endpoints.add(new StaticEndpoint(k.get(3).host(), k.get(3).port()));
          return p;
        });
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> effectiveWeight("k4") > 0);
    long admitted = System.nanoTime();

    List<Integer> shares = new ArrayList<>();
    List<Double> weights = new ArrayList<>();
    for (long at : new long[] {0, 2_000, 4_000, WINDOW_MILLIS + 1_000}) {
      await()
          .atMost(Duration.ofSeconds(20))
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(20))
          .until(() -> (System.nanoTime() - admitted) / 1_000_000 >= at);
      weights.add(effectiveWeight("k4"));
      TreeMap<String, Integer> split = h.sequential("ramp.local", 100);
      shares.add(split.getOrDefault("k4", 0));
    }
    System.out.println(
        "FIGURE slow start, window "
            + WINDOW_MILLIS
            + " ms: k4 effective weight "
            + weights
            + ", k4's requests of 100 at 0 s, 2 s, 4 s, after the window: "
            + shares);
    assertThat(shares.get(0)).as("shares %s", shares).isLessThan(shares.get(1));
    assertThat(shares.get(1)).as("shares %s", shares).isLessThan(shares.get(2));
    assertThat(shares.get(2)).as("shares %s", shares).isLessThan(shares.get(3));
    assertThat(shares.get(0)).as("about 10 %% of a full share at first").isLessThan(10);
    assertThat(shares.get(3)).as("a full quarter after the window").isBetween(24, 26);
    assertThat(weights.get(3)).isEqualTo(1.0);
  }

  /** The effective weight of the member named by its replica, from the data plane's /status. */
  static double effectiveWeight(String replica) {
    String address = k.get(Integer.parseInt(replica.substring(1)) - 1).address();
    JsonArray pools = h.dataPlaneStatus().getJsonArray("pools");
    for (int i = 0; i < pools.size(); i++) {
      JsonObject p = pools.getJsonObject(i);
      if (p.getString("name").endsWith("/ramp")) {
        JsonArray members = p.getJsonArray("members");
        for (int j = 0; j < members.size(); j++) {
          JsonObject m = members.getJsonObject(j);
          if (address.equals(m.getString("address"))) {
            return m.getDouble("effectiveWeight");
          }
        }
      }
    }
    return 0.0;
  }
}
