package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.operator.ReplicaPoolOperator;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator's control-plane port and the data plane's ports against clients that should not be
 * there: without the token nothing is accepted and nothing leaks; even with it, a client cannot
 * make the operator pass a snapshot on to the data planes; neither the data plane's admin port nor
 * the operator's ports can be reached through a traffic port.
 */
class HostileControlPlaneIT {
  static FaultSystem sys;
  static ReplicaPoolOperator op;
  static DataPlane dp;
  static Vertx client;
  static WebSocketClient ws;
  static final List<String> table = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() {
    sys = new FaultSystem("hostile-cp");
    op = sys.startOperator();
    dp = sys.startDataPlane("dp-real", op.controlPlanePort());
    FaultTcpMember member = sys.closeLater(FaultTcpMember.silent());
    sys.create(sys.pool("orders", List.of(member.address())));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> FaultSystem.poolOn(sys.status(dp), "orders") != null);
    client = Vertx.vertx();
    ws = client.createWebSocketClient();
  }

  @AfterAll
  static void stop() {
    System.out.println("FIGURE hostile-control-plane: outcome per attempt");
    table.forEach(l -> System.out.println("FIGURE   " + l));
    client.close().await();
    sys.close();
  }

  static Future<WebSocket> dial(String uri, String authorization) {
    WebSocketConnectOptions o =
        new WebSocketConnectOptions()
            .setHost("127.0.0.1")
            .setPort(op.controlPlanePort())
            .setURI(uri)
            .setTimeout(5_000);
    if (authorization != null) {
      o.addHeader(ControlPlaneProtocol.AUTHORIZATION, authorization);
    }
    return sys.onLoop.call(() -> ws.connect(o));
  }

  /** The HTTP status the upgrade was rejected with, or 101 if it was accepted. */
  static int upgrade(String uri, String authorization) {
    try {
      WebSocket s = FaultSystem.block(dial(uri, authorization));
      s.close();
      return 101;
    } catch (RuntimeException e) {
      Throwable t = e;
      while (t != null && !(t instanceof UpgradeRejectedException)) {
        t = t.getCause();
      }
      if (t == null) {
        throw e;
      }
      return ((UpgradeRejectedException) t).getStatus();
    }
  }

  @Test
  void unauthenticatedOrWronglyAuthenticatedClientsAreRefused() {
    String token = sys.token;
    String path = ControlPlaneProtocol.STREAM_PATH;
    List<String[]> attempts = new ArrayList<>();
    attempts.add(new String[] {"no Authorization header", path, null});
    attempts.add(new String[] {"wrong token", path, "Bearer not-the-token"});
    attempts.add(new String[] {"empty bearer", path, "Bearer "});
    attempts.add(new String[] {"token with a suffix", path, "Bearer " + token + "x"});
    attempts.add(
        new String[] {"token prefix", path, "Bearer " + token.substring(0, token.length() - 1)});
    attempts.add(new String[] {"token without the Bearer scheme", path, token});
    attempts.add(
        new String[] {
          "token as Basic credentials",
          path,
          "Basic "
              + Base64.getEncoder().encodeToString(("dp:" + token).getBytes(StandardCharsets.UTF_8))
        });
    attempts.add(new String[] {"token in the query string", path + "?token=" + token, null});
    for (String[] a : attempts) {
      int status = upgrade(a[1], a[2]);
      table.add(String.format("%-45s upgrade answered %d", a[0], status));
      assertThat(status).as(a[0]).isEqualTo(401);
    }
    // Plain HTTP on the stream path, with or without the token: no upgrade, no snapshot.
    for (String auth : new String[] {null, "Bearer " + token}) {
      RequestOptions r =
          new RequestOptions()
              .setMethod(HttpMethod.GET)
              .setHost("127.0.0.1")
              .setPort(op.controlPlanePort())
              .setURI(path);
      if (auth != null) {
        r.putHeader("Authorization", auth);
      }
      FaultSystem.Reply reply =
          sys.call(
              () ->
                  sys.http
                      .request(r)
                      .compose(req -> req.send())
                      .compose(
                          resp ->
                              resp.body()
                                  .map(
                                      b ->
                                          new FaultSystem.Reply(resp.statusCode(), b.toString()))));
      table.add(
          String.format(
              "%-45s answered %d, %d bytes",
              "plain GET " + (auth == null ? "without" : "with") + " token",
              reply.status(),
              reply.body().length()));
      assertThat(reply.status()).isIn(401, 426);
      assertThat(reply.body()).doesNotContain("snapshot");
    }
    // The real data plane never noticed.
    assertThat(dp.controlPlaneConnected()).isTrue();
  }

  @Test
  void aSnapshotCannotBeInjectedEvenWithTheToken() {
    long before = sys.versionOn(dp, "orders");
    String injected =
        new JsonObject()
            .put("type", "snapshot")
            .put("pool", sys.namespace + "/orders")
            .put("version", Long.MAX_VALUE)
            .put(
                "snapshot",
                new JsonObject()
                    .put("pool", sys.namespace + "/orders")
                    .put("version", Long.MAX_VALUE)
                    .put("policy", "RoundRobin")
                    .put("hosts", List.of("orders.local"))
                    .put(
                        "members",
                        List.of(
                            new JsonObject()
                                .put("host", "127.0.0.1")
                                .put("port", 1)
                                .put("weight", 1.0)
                                .put("state", "Healthy"))))
            .encode();
    List<String[]> frames = new ArrayList<>();
    frames.add(new String[] {"snapshot before hello", injected});
    frames.add(new String[] {"hello then snapshot", "HELLO", injected});
    frames.add(
        new String[] {
          "remove of a pool after hello",
          "HELLO",
          new JsonObject()
              .put("type", "remove")
              .put("pool", sys.namespace + "/orders")
              .put("version", Long.MAX_VALUE)
              .encode()
        });
    frames.add(new String[] {"malformed JSON", "HELLO", "{\"type\": snap"});
    frames.add(
        new String[] {"ack before hello", "{\"type\":\"ack\",\"pool\":\"x/y\",\"version\":1}"});
    frames.add(new String[] {"binary frame", "HELLO", "BINARY"});
    for (String[] f : frames) {
      WebSocket s =
          FaultSystem.block(dial(ControlPlaneProtocol.STREAM_PATH, "Bearer " + sys.token));
      Promise<Short> closed = Promise.promise();
      s.closeHandler(v -> closed.tryComplete(s.closeStatusCode()));
      for (int i = 1; i < f.length; i++) {
        switch (f[i]) {
          case "HELLO" -> s.writeTextMessage("{\"type\":\"hello\",\"node\":\"rogue\"}");
          case "BINARY" -> s.writeBinaryMessage(Buffer.buffer(new byte[] {1, 2, 3}));
          default -> s.writeTextMessage(f[i]);
        }
      }
      Short code = FaultSystem.block(closed.future());
      table.add(String.format("%-45s connection closed with %s", "with token: " + f[0], code));
      assertThat(code).as(f[0]).isIn((short) 1003, (short) 1007, (short) 1008);
    }
    // Nothing reached the real data plane: no injected version (the operator itself may have
    // published a newer one meanwhile, after a probe), no injected member, still connected.
    assertThat(sys.versionOn(dp, "orders"))
        .isGreaterThanOrEqualTo(before)
        .isNotEqualTo(Long.MAX_VALUE);
    assertThat(FaultSystem.poolOn(sys.status(dp), "orders").encode())
        .doesNotContain("127.0.0.1:1\"");
    assertThat(dp.controlPlaneConnected()).isTrue();
  }

  @Test
  void theDataPlaneHasNoInboundControlPathAndItsAdminPortOnlyReads() throws Exception {
    // The data plane dials out; its admin port takes GET and HEAD only, and no WebSocket.
    HostileSocket.Outcome post;
    try (HostileSocket raw = new HostileSocket(dp.adminPort(), 5_000)) {
      post =
          raw.exchange(
              "POST /status HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n"
                  + "Connection: close\r\n\r\n{}");
    }
    table.add(
        String.format("%-45s answered %d", "POST to the data plane's admin port", post.status()));
    assertThat(post.status()).isEqualTo(405);
    int adminUpgrade;
    try {
      WebSocketConnectOptions o =
          new WebSocketConnectOptions()
              .setHost("127.0.0.1")
              .setPort(dp.adminPort())
              .setURI(ControlPlaneProtocol.STREAM_PATH)
              .addHeader("Authorization", "Bearer " + sys.token);
      sys.call(() -> ws.connect(o)).close();
      adminUpgrade = 101;
    } catch (RuntimeException e) {
      Throwable t = e;
      while (t != null && !(t instanceof UpgradeRejectedException)) {
        t = t.getCause();
      }
      adminUpgrade = t == null ? -1 : ((UpgradeRejectedException) t).getStatus();
    }
    table.add(
        String.format(
            "%-45s answered %d", "WebSocket to the data plane's admin port", adminUpgrade));
    assertThat(adminUpgrade).isNotEqualTo(101);
  }

  @Test
  void operatorAndAdminPortsAreNotReachableThroughTheTrafficPort() {
    for (int port : new int[] {dp.adminPort(), op.controlPlanePort(), op.adminPort()}) {
      for (String path : new String[] {"/status", "/metrics", ControlPlaneProtocol.STREAM_PATH}) {
        FaultSystem.Reply r = sys.httpGet(dp.trafficPort(), "127.0.0.1:" + port, path);
        table.add(
            String.format(
                "%-45s answered %d", "traffic port, Host 127.0.0.1:" + port + path, r.status()));
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.body()).startsWith("no pool matches host");
      }
    }
  }
}
