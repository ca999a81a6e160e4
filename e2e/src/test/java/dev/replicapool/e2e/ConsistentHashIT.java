package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.ConsistentHash;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.testing.ReplicaProcess;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Key stickiness with real replicas and two data planes of one operator: the same header key
 * reaches the same member through either data plane, and a member that stops takes only its own
 * keys with it.
 */
class ConsistentHashIT {
  static final int KEYS = 200;
  static final String HOST = "sticky.local";
  static SystemHarness h;
  static DataPlane second;
  static final List<ReplicaProcess> members = new ArrayList<>();
  static final HttpClient admin =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() {
    h = new SystemHarness("chash");
    for (int i = 1; i <= 5; i++) {
      members.add(
          h.closeLater(
              ReplicaProcess.start("k" + i, "127.0.0.1", ReplicaProcess.freePort("127.0.0.1"))));
    }
    second = h.extraDataPlane("dp-chash-2", null, SystemHarness.TOKEN);
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void theSameKeyReachesTheSameMemberThroughEitherDataPlaneAndOnlyAStoppedMembersKeysMove()
      throws Exception {
    createPool();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> routable(h.dataPlane) == 5 && routable(second) == 5);
    h.awaitReadyAndSynced("sticky"); // both data planes hold the same snapshot

    Map<String, String> before = ownersThroughBoth();
    assertThat(new HashSet<>(before.values())).as("200 keys spread over the members").hasSize(5);
    TreeMap<String, Integer> perMember = new TreeMap<>();
    before.values().forEach(m -> perMember.merge(m, 1, Integer::sum));

    ReplicaProcess stopped = members.get(2);
    stopped.stop();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> routable(h.dataPlane) == 4 && routable(second) == 4);
    h.awaitReadyAndSynced("sticky");

    Map<String, String> after = ownersThroughBoth();
    int moved = 0;
    for (Map.Entry<String, String> e : before.entrySet()) {
      String now = after.get(e.getKey());
      if (e.getValue().equals(stopped.name())) {
        assertThat(now).as("key %s of the stopped member", e.getKey()).isNotEqualTo(stopped.name());
        moved++;
      } else {
        assertThat(now).as("key %s of a member that stayed", e.getKey()).isEqualTo(e.getValue());
      }
    }
    System.out.println(
        "FIGURE consistent hashing, 200 header keys over 5 members, two data planes: "
            + perMember
            + "; k3 stopped: its "
            + moved
            + " keys moved, the other "
            + (KEYS - moved)
            + " stayed, the same through both data planes");
    assertThat(moved).isEqualTo(perMember.get("k3"));
  }

  static void createPool() {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName("sticky");
    pool.getMetadata().setNamespace(h.namespace);
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.endpoints = new ArrayList<>();
    members.forEach(r -> spec.endpoints.add(new StaticEndpoint(r.host(), r.port())));
    spec.route = new Route();
    spec.route.hosts = List.of(HOST);
    // A stopped member refuses connections at once; a timeout with room keeps a loaded machine's
    // slow probe answers from making members that stay flap (and their keys move).
    spec.healthCheck.intervalMillis = 300;
    spec.healthCheck.timeoutMillis = 250;
    spec.routing.policy = RoutingPolicy.ConsistentHash;
    spec.routing.consistentHash = new ConsistentHash();
    spec.routing.consistentHash.header = "x-user";
    pool.setSpec(spec);
    h.client.resource(pool).create();
  }

  /** Each key's member, asserting that both data planes answer alike. */
  static Map<String, String> ownersThroughBoth() throws IOException {
    Map<String, String> owners = new TreeMap<>();
    try (KeepAliveClient one = new KeepAliveClient("127.0.0.1", h.dataPlane.trafficPort());
        KeepAliveClient two = new KeepAliveClient("127.0.0.1", second.trafficPort())) {
      for (int i = 0; i < KEYS; i++) {
        String key = "user-" + i;
        KeepAliveClient.Response a = one.get(HOST, "/track/" + i, "x-user: " + key + "\r\n");
        KeepAliveClient.Response b = two.get(HOST, "/track/" + i, "x-user: " + key + "\r\n");
        assertThat(a.status()).as("key %s, first data plane", key).isEqualTo(200);
        assertThat(b.status()).as("key %s, second data plane", key).isEqualTo(200);
        assertThat(b.replica())
            .as("key %s through the second data plane", key)
            .isEqualTo(a.replica());
        owners.put(key, a.replica());
      }
    }
    return owners;
  }

  /** The pool's routable members as a data plane's /status counts them (-1: no such pool). */
  static int routable(DataPlane dp) throws IOException, InterruptedException {
    HttpResponse<String> r =
        admin.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + dp.adminPort() + "/status"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    return ScenarioS1IT.routableOnDataPlane(new JsonObject(r.body()), "sticky");
  }
}
