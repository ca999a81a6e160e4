package dev.replicapool.e2e;

import static dev.replicapool.e2e.SystemHarness.block;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.api.v1alpha1.Tls;
import dev.replicapool.api.wire.ControlPlaneProtocol;
import dev.replicapool.api.wire.StreamMessage;
import dev.replicapool.controlplane.WireCodec;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.testing.OnEventLoop;
import dev.replicapool.testing.ReplicaPools;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketConnectOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Data-plane groups through the whole system: the real operator on a real API server, data planes
 * of groups {@code a} and {@code b} on the real stream. A pool of group {@code a} (with its TLS
 * key) never reaches a data plane of group {@code b}: not its /status, not its ConfigStore, not one
 * frame of its stream; when the pool moves to {@code b} it leaves {@code a}.
 */
class DataPlaneGroupsIT {
  static final Duration WAIT = Duration.ofSeconds(30);
  static SystemHarness h;
  static ReplicaProcess replica;
  static DataPlane dpA;
  static DataPlane dpB;
  static final List<String> framesOfB = new CopyOnWriteArrayList<>();
  static final HttpClient http = HttpClient.newHttpClient();
  static final String TOKEN_B = "token-of-group-b";
  static DataPlane thief;

  @BeforeAll
  static void start() throws Exception {
    // Group b has a token of its own from the operator's one start.
    h = new SystemHarness("groups", c -> c.withGroupTokens(Map.of("b", TOKEN_B)));
    replica =
        h.closeLater(ReplicaProcess.start("g1", "127.0.0.1", ReplicaProcess.freePort("127.0.0.1")));
    dpA = dataPlane("dp-group-a", "a", SystemHarness.TOKEN);
    dpB = dataPlane("dp-group-b", "b", TOKEN_B);
    // The shared token cannot subscribe to group b, which has a token of its own.
    thief = dataPlane("dp-thief", "b", SystemHarness.TOKEN);
    // A third data plane of group b that only records what the operator sends it.
    WebSocket ws =
        block(
            new OnEventLoop(h.vertx)
                .call(
                    () ->
                        h.vertx
                            .createWebSocketClient()
                            .connect(
                                new WebSocketConnectOptions()
                                    .setHost("127.0.0.1")
                                    .setPort(h.operatorPort())
                                    .setURI(ControlPlaneProtocol.STREAM_PATH)
                                    .putHeader(
                                        ControlPlaneProtocol.AUTHORIZATION, "Bearer " + TOKEN_B))));
    ws.textMessageHandler(framesOfB::add);
    block(ws.writeTextMessage(WireCodec.encode(StreamMessage.hello("dp-group-b-recorder", "b"))));
  }

  static DataPlane dataPlane(String node, String group, String token) {
    return h.extraDataPlane(node, group, token);
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static ReplicaPool pool(String name, List<String> groups) {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName(name);
    pool.getMetadata().setNamespace(h.namespace);
    pool.setSpec(new ReplicaPoolSpec());
    pool.getSpec().endpoints =
        new ArrayList<>(List.of(new StaticEndpoint(replica.host(), replica.port())));
    pool.getSpec().route = new Route();
    pool.getSpec().route.hosts = List.of(name + ".example");
    pool.getSpec().dataPlaneGroups = groups;
    return pool;
  }

  static String status(DataPlane dp) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + dp.adminPort() + "/status"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  static Condition synced(String pool) {
    ReplicaPool p = h.pool(pool).get();
    assertThat(p.getStatus()).as("status of %s", pool).isNotNull();
    return p.getStatus().conditions.stream()
        .filter(c -> c.getType().equals("DataPlaneSynced"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no DataPlaneSynced condition yet"));
  }

  @Test
  void aPoolOfGroupAAndItsKeyNeverReachGroupBUntilItMovesThere() throws Exception {
    h.client
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("a-tls")
                .withNamespace(h.namespace)
                .endMetadata()
                .withType("kubernetes.io/tls")
                .withStringData(
                    Map.of(
                        "tls.crt",
                        ScenarioTlsAndNackIT.resource("a-example.crt"),
                        "tls.key",
                        ScenarioTlsAndNackIT.resource("a-example.key")))
                .build())
        .create();
    ReplicaPool secure = pool("secure", List.of("a"));
    secure.getSpec().tls = new Tls();
    secure.getSpec().tls.secretName = "a-tls";
    h.client.resource(secure).create();
    String key = h.namespace + "/secure";

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(synced("secure").getStatus()).isEqualTo("True");
              assertThat(synced("secure").getMessage())
                  .startsWith("1/1 data planes applied version");
            });
    assertThat(dpA.store().table().pool(key)).isNotNull();
    assertThat(dpA.store().table().pool(key).tls()).isNotNull();
    assertThat(status(dpA)).contains(key);

    // Group b (and the default group) hold nothing of it, and were sent nothing of it.
    await().atMost(WAIT).until(() -> framesOfB.stream().anyMatch(f -> f.contains("synced")));
    assertThat(dpB.store().table().pool(key)).isNull();
    assertThat(h.dataPlane.store().table().pool(key)).isNull();
    assertThat(status(dpB)).doesNotContain("secure");
    assertThat(h.dataPlaneStatus().encode()).doesNotContain("secure");
    assertThat(framesOfB)
        .noneMatch(f -> f.contains("secure"))
        .noneMatch(f -> f.contains("PRIVATE KEY"));

    // The pool moves to group b: it leaves a, reaches b, and b's stream now carries it.
    ReplicaPools.editSpec(
        h.pool("secure"),
        p -> {
          p.getSpec().dataPlaneGroups = List.of("b");
          return p;
        });
    await().atMost(WAIT).until(() -> dpB.store().table().pool(key) != null);
    await().atMost(WAIT).until(() -> dpA.store().table().pool(key) == null);
    assertThat(status(dpA)).doesNotContain("secure");
    await().atMost(WAIT).until(() -> framesOfB.stream().anyMatch(f -> f.contains(key)));
    // The data plane that claims group b with the shared token got nothing, not even now.
    assertThat(thief.store().table().pools()).isEmpty();
    // Two data planes of group b now count: the real one and the recorder (which never ACKs).
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(synced("secure").getMessage())
                    .startsWith("1/2 data planes applied version"));
    System.out.println(
        "FIGURE groups: frames sent to the group-b recorder: "
            + framesOfB.size()
            + ", status of secure: "
            + Serialization.asJson(synced("secure")));
  }

  @Test
  void aPoolWhoseGroupsHaveNoDataPlaneSaysSo() {
    h.client.resource(pool("lonely", List.of("nobody", "none"))).create();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              Condition c = synced("lonely");
              assertThat(c.getStatus()).isEqualTo("Unknown");
              assertThat(c.getReason()).isEqualTo("NoDataPlanes");
              assertThat(c.getMessage())
                  .isEqualTo("no data plane of the groups nobody, none is connected");
            });
    assertThat(dpA.store().table().pool(h.namespace + "/lonely")).isNull();
    assertThat(dpB.store().table().pool(h.namespace + "/lonely")).isNull();
    assertThat(h.dataPlane.store().table().pool(h.namespace + "/lonely")).isNull();
  }
}
