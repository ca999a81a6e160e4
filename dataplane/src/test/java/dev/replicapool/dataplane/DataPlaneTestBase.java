package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.controlplane.ControlPlaneClient;
import dev.replicapool.controlplane.ControlPlaneServer;
import dev.replicapool.controlplane.SyncState;
import dev.replicapool.dataplane.proxy.ProxySettings;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A real control-plane server, a real data plane (its own Vert.x) and real member servers, all on
 * 127.0.0.1 with random ports.
 */
abstract class DataPlaneTestBase {
  static final String TOKEN = "it-token-do-not-print";
  static final Duration WAIT = Duration.ofSeconds(10);

  Vertx vertx;
  Vertx dpVertx;
  ControlPlaneServer cp;
  DataPlane dp;
  final List<TestMember> members = new ArrayList<>();

  /**
   * HTTP/1.1, as Prometheus and curl ask the admin port: the JDK client's default first offers an
   * h2c upgrade, a path no user takes. (A hang of /metrics was seen once with the default client;
   * its cause is not known, and a timeout now prints every thread.)
   */
  final HttpClient admin = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeEach
  void startControlPlane() {
    vertx = Vertx.vertx();
    cp = new ControlPlaneServer(vertx, new ControlPlaneServer.Options("127.0.0.1", 0, TOKEN));
    cp.start().await();
  }

  @AfterEach
  void stopAll() {
    if (dp != null) {
      dp.stop().await();
    }
    if (dpVertx != null) {
      dpVertx.close().await();
    }
    cp.stop().await();
    vertx.close().await();
  }

  ProxySettings settings() {
    return ProxySettings.defaults()
        .withListen("127.0.0.1", 0, -1)
        .withInstances(2)
        .withUpstreamTimeouts(500, 5_000)
        .withDrainMillis(3_000);
  }

  DataPlane startDataPlane() {
    return startDataPlane(settings());
  }

  DataPlane startDataPlane(ProxySettings settings) {
    return startDataPlane(settings, dev.replicapool.dataplane.accesslog.AccessLogConfig.OFF);
  }

  DataPlane startDataPlane(
      ProxySettings settings, dev.replicapool.dataplane.accesslog.AccessLogConfig accessLog) {
    return startDataPlane(settings, accessLog, dev.replicapool.dataplane.tracing.TracingConfig.OFF);
  }

  DataPlane startDataPlane(
      ProxySettings settings,
      dev.replicapool.dataplane.accesslog.AccessLogConfig accessLog,
      dev.replicapool.dataplane.tracing.TracingConfig tracing) {
    // The native transport where it loads, as DataPlaneMain runs (SO_REUSEPORT listeners).
    dpVertx = Vertx.vertx(new io.vertx.core.VertxOptions().setPreferNativeTransport(true));
    ControlPlaneClient.Options cpo =
        ControlPlaneClient.Options.of("127.0.0.1", cp.port(), TOKEN, "dp-test")
            .withBackoff(20, 200);
    dp =
        DataPlane.start(
                dpVertx, new DataPlane.Config(cpo, settings, "127.0.0.1", 0, accessLog, tracing))
            .await();
    await().atMost(WAIT).until(dp::controlPlaneConnected);
    return dp;
  }

  /** An HTTP/2 client that speaks it from the first byte, without an upgrade, as gRPC does. */
  static io.vertx.core.http.HttpClient h2PriorKnowledge(Vertx vertx) {
    return vertx.createHttpClient(
        new io.vertx.core.http.HttpClientOptions()
            .setProtocolVersion(io.vertx.core.http.HttpVersion.HTTP_2)
            .setHttp2ClearTextUpgrade(false));
  }

  TestMember member(String name) {
    TestMember m = new TestMember(vertx, name).start();
    members.add(m);
    return m;
  }

  /** Publishes with the server's next version and waits for the data plane's ACK. */
  PoolSnapshot publish(SnapshotBuilder b) {
    PoolSnapshot s = b.version(cp.nextVersion(poolName(b)));
    assertThat(cp.publish(s)).isTrue();
    await()
        .atMost(WAIT)
        .until(
            () -> {
              SyncState st = cp.syncState(s.pool());
              return st.synced() || !st.nacks().isEmpty();
            });
    assertThat(cp.syncState(s.pool()).nacks()).isEmpty();
    return s;
  }

  /** Publishes and waits for the NACK; returns its reason. */
  String publishRejected(SnapshotBuilder b) {
    PoolSnapshot s = b.version(cp.nextVersion(poolName(b)));
    assertThat(cp.publish(s)).isTrue();
    await().atMost(WAIT).until(() -> !cp.syncState(s.pool()).nacks().isEmpty());
    return cp.syncState(s.pool()).nacks().get(0);
  }

  private static String poolName(SnapshotBuilder b) {
    return b.version(1).pool();
  }

  /** n sequential GETs over one connection; counts answers by x-replica (or by status). */
  static Map<String, Integer> sequential(int port, String host, int n) throws IOException {
    Map<String, Integer> counts = new HashMap<>();
    try (RawHttp c = RawHttp.connect(port)) {
      for (int i = 0; i < n; i++) {
        RawHttp.Response r = c.get(host, "/track/" + i);
        String key = r.status() == 200 ? r.header("x-replica") : "status " + r.status();
        counts.merge(key, 1, Integer::sum);
      }
    }
    return counts;
  }

  HttpResponse<String> adminGet(String path) throws IOException, InterruptedException {
    return admin.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + dp.adminPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  JsonObject status() throws IOException, InterruptedException {
    return new JsonObject(adminGet("/status").body());
  }

  JsonObject poolStatus(String pool) throws IOException, InterruptedException {
    JsonArray pools = status().getJsonArray("pools");
    for (int i = 0; i < pools.size(); i++) {
      if (pools.getJsonObject(i).getString("name").equals(pool)) {
        return pools.getJsonObject(i);
      }
    }
    return null;
  }

  static String resource(String name) throws IOException {
    try (InputStream in = DataPlaneTestBase.class.getClassLoader().getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The sum of the data plane's samples of {@code name} whose labels contain {@code labels}. */
  double metric(String name, String labels) throws Exception {
    String body = adminGet("/metrics").body();
    Matcher m =
        Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{([^}]*)\\} ([0-9.eE+-]+)$")
            .matcher(body);
    double sum = 0;
    while (m.find()) {
      if (m.group(1).contains(labels)) {
        sum += Double.parseDouble(m.group(2));
      }
    }
    return sum;
  }
}
