package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.dataplane.accesslog.AccessLog;
import dev.replicapool.dataplane.accesslog.AccessLogConfig;
import dev.replicapool.dataplane.accesslog.AccessLogFormat;
import dev.replicapool.dataplane.proxy.ProxySettings;
import dev.replicapool.testing.OnEventLoop;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The access log of a real data plane, written to a file: one line per request of the pools whose
 * spec asks, with its protocol, tries, retries, hedges and the flags of the proxy's own answers;
 * sampling and "errors only" as the pool says.
 */
class AccessLogIT extends DataPlaneTestBase {
  static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String TRACEPARENT = "00-" + TRACE + "-00f067aa0ba902b7-01";

  @TempDir Path dir;

  Path file;

  void start(AccessLogFormat format) {
    file = dir.resolve("access.log");
    ProxySettings s = settings();
    startDataPlane(
        s, new AccessLogConfig(file.toString(), new AccessLog.Options(format, false, false, 1024)));
  }

  @Test
  void jsonLinesSayWhatHappenedToEachRequest() throws Exception {
    TestMember good = member("good");
    TestMember sick = member("sick");
    sick.status = 503;
    TestMember slow = member("slow");
    slow.delayMillis = 400;
    TestMember fast = member("fast");
    TestMember h2 = member("h2");
    start(AccessLogFormat.JSON);
    publish(
        SnapshotBuilder.pool("shop/log")
            .hosts("log.example")
            .retryOn5xx()
            .accessLog(true, 1.0, false)
            .members(good.snapshot(1), sick.snapshot(1)));
    publish(
        SnapshotBuilder.pool("shop/hedge")
            .hosts("hedge.example")
            .hedgeAfterMillis(30, 1)
            .accessLog(true, 1.0, false)
            .members(slow.snapshot(1), fast.snapshot(1)));
    publish(
        SnapshotBuilder.pool("shop/h2")
            .hosts("h2.example")
            .appProtocol("kubernetes.io/h2c")
            .accessLog(true, 1.0, false)
            .members(h2.snapshot(1)));
    publish(SnapshotBuilder.pool("shop/empty").hosts("empty.example").accessLog(true, 1, false));
    publish(
        SnapshotBuilder.pool("shop/errors")
            .hosts("errors.example")
            .accessLog(true, 1.0, true)
            .members(good.snapshot(1), sick.snapshot(1)));
    publish(
        SnapshotBuilder.pool("shop/quiet")
            .hosts("quiet.example")
            .accessLog(true, 0.0, false)
            .members(good.snapshot(1)));
    publish(SnapshotBuilder.pool("shop/off").hosts("off.example").members(good.snapshot(1)));

    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      for (int i = 0; i < 4; i++) {
        RawHttp.Response r =
            c.send(
                "GET /log/"
                    + i
                    + "?secret=1 HTTP/1.1\r\nHost: log.example\r\ntraceparent: "
                    + TRACEPARENT
                    + "\r\n\r\n");
        assertThat(r.status()).isEqualTo(200); // the sick member's 503s are retried
      }
      for (int i = 0; i < 2; i++) {
        assertThat(c.get("hedge.example", "/hedge/" + i).status()).isEqualTo(200);
      }
      assertThat(c.get("empty.example", "/nobody").status()).isEqualTo(503);
      for (int i = 0; i < 4; i++) {
        c.get("errors.example", "/errors/" + i);
      }
      for (int i = 0; i < 3; i++) {
        assertThat(c.get("quiet.example", "/quiet").status()).isEqualTo(200);
        assertThat(c.get("off.example", "/off").status()).isEqualTo(200);
      }
    }
    http2Get("h2.example", "/h2/1");
    http2Get("log.example", "/h2-to-h1");

    // The lines are written in order: once the last request's is there, all earlier ones are.
    await().atMost(WAIT).until(() -> lines().stream().anyMatch(l -> path(l, "/h2-to-h1")));
    List<JsonObject> lines = lines();

    List<JsonObject> log = pool(lines, "shop/log");
    assertThat(log).hasSize(5);
    JsonObject plain = log.get(0);
    assertThat(plain.getString("protocol")).isEqualTo("HTTP/1.1");
    assertThat(plain.getString("method")).isEqualTo("GET");
    assertThat(plain.getString("authority")).isEqualTo("log.example");
    assertThat(plain.getString("path")).isEqualTo("/log/0"); // the query is left out by default
    assertThat(plain.getString("client")).isEqualTo("127.0.0.1");
    assertThat(plain.getString("traceId")).isEqualTo(TRACE);
    assertThat(plain.getInteger("status")).isEqualTo(200);
    assertThat(plain.getLong("bytesOut")).isPositive();
    assertThat(plain.getDouble("durationMs")).isGreaterThanOrEqualTo(plain.getDouble("ttfbMs"));
    assertThat(plain.getString("flags")).isEqualTo("-");
    // Round robin over good and sick: two of the four met the sick member first, and were retried.
    List<JsonObject> retried =
        log.stream().limit(4).filter(l -> l.getInteger("retries") == 1).toList();
    assertThat(retried).hasSize(2);
    for (JsonObject r : retried) {
      assertThat(r.getJsonArray("tries")).hasSize(2);
      assertThat(r.getJsonArray("tries").getJsonObject(0).getString("outcome")).isEqualTo("5xx");
      assertThat(r.getJsonArray("tries").getJsonObject(0).getString("member"))
          .isEqualTo("127.0.0.1:" + sick.port);
      assertThat(r.getJsonArray("tries").getJsonObject(1).getString("outcome")).isEqualTo("2xx");
      assertThat(r.getInteger("status")).isEqualTo(200);
    }
    JsonObject h2ToH1 = log.get(4);
    assertThat(h2ToH1.getString("protocol")).isEqualTo("HTTP/2");
    assertThat(h2ToH1.getInteger("status")).isEqualTo(200);

    List<JsonObject> hedge = pool(lines, "shop/hedge");
    assertThat(hedge).hasSize(2);
    JsonObject hedged =
        hedge.stream().filter(l -> l.getInteger("hedges") == 1).findFirst().orElseThrow();
    assertThat(
            hedged.getJsonArray("tries").stream().map(t -> ((JsonObject) t).getString("outcome")))
        .containsExactlyInAnyOrder("cancelled", "2xx");

    JsonObject viaH2 = pool(lines, "shop/h2").get(0);
    assertThat(viaH2.getString("protocol")).isEqualTo("HTTP/2");
    assertThat(viaH2.getString("path")).isEqualTo("/h2/1");
    assertThat(viaH2.getInteger("status")).isEqualTo(200);
    assertThat(viaH2.getJsonArray("tries")).hasSize(1);
    assertThat(viaH2.getLong("bytesOut")).isPositive();

    JsonObject local = pool(lines, "shop/empty").get(0);
    assertThat(local.getInteger("status")).isEqualTo(503);
    assertThat(local.getBoolean("local")).isTrue();
    assertThat(local.getString("flags")).isEqualTo("UH");
    assertThat(local.getJsonArray("tries")).isEmpty();
    assertThat(local.getLong("bytesOut")).isPositive(); // the proxy's own answer counts too

    // Errors only: the sick member's two answers, none of the good one's.
    List<JsonObject> errors = pool(lines, "shop/errors");
    assertThat(errors).hasSize(2).allMatch(l -> l.getInteger("status") == 503);
    assertThat(pool(lines, "shop/quiet")).isEmpty(); // sampled at 0
    assertThat(pool(lines, "shop/off")).isEmpty(); // its spec does not ask
    assertThat(adminGet("/metrics").body()).contains("replicapool_access_log_dropped_total 0.0");
  }

  @Test
  void textLinesAreShortAndCarryTheFlags() throws Exception {
    TestMember good = member("good");
    start(AccessLogFormat.TEXT);
    publish(
        SnapshotBuilder.pool("shop/text")
            .hosts("text.example")
            .accessLog(true, 1.0, false)
            .members(good.snapshot(1)));
    publish(SnapshotBuilder.pool("shop/empty").hosts("empty.example").accessLog(true, 1, false));
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      assertThat(c.get("text.example", "/a").status()).isEqualTo(200);
      assertThat(c.get("empty.example", "/b").status()).isEqualTo(503);
    }
    await().atMost(WAIT).until(() -> Files.exists(file) && Files.readAllLines(file).size() == 2);
    List<String> lines = Files.readAllLines(file);
    assertThat(lines.get(0))
        .matches(
            "\\[\\S+Z] \"GET text.example/a HTTP/1.1\" 200 - 0 \\d+ [\\d.]+ [\\d.]+ 127.0.0.1"
                + " shop/text 127.0.0.1:"
                + good.port
                + ":2xx:[\\d.]+ retries=0 hedges=0 -");
    assertThat(lines.get(1))
        .matches(
            "\\[\\S+Z] \"GET empty.example/b HTTP/1.1\" 503 UH 0 \\d+ [\\d.]+ [\\d.]+ 127.0.0.1"
                + " shop/empty - retries=0 hedges=0 -");
  }

  @Test
  void grpcCallsCarryTheStatusTheClientGot() throws Exception {
    GrpcEcho echo = new GrpcEcho("g1");
    ManagedChannel channel = null;
    try {
      start(AccessLogFormat.JSON);
      publish(
          SnapshotBuilder.pool("shop/grpc")
              .hosts("grpc.example")
              .appProtocol("kubernetes.io/h2c")
              .accessLog(true, 1.0, false)
              .member(new MemberSnapshot("127.0.0.1", echo.port(), 1.0, MemberState.Healthy)));
      publish(
          SnapshotBuilder.pool("shop/grpc-empty")
              .hosts("grpc-empty.example")
              .appProtocol("kubernetes.io/h2c")
              .accessLog(true, 1.0, false));
      channel =
          NettyChannelBuilder.forAddress("127.0.0.1", dp.trafficPort())
              .usePlaintext()
              .overrideAuthority("grpc.example")
              .build();
      assertThat(GrpcEcho.unary(channel, "hello")).isEqualTo("g1:hello");
      Channel failing = channel;
      assertThatThrownBy(
              () -> ClientCalls.blockingUnaryCall(failing, GrpcEcho.FAIL, CallOptions.DEFAULT, "x"))
          .isInstanceOf(StatusRuntimeException.class);
      ManagedChannel empty =
          NettyChannelBuilder.forAddress("127.0.0.1", dp.trafficPort())
              .usePlaintext()
              .overrideAuthority("grpc-empty.example")
              .build();
      try {
        assertThatThrownBy(() -> GrpcEcho.unary(empty, "nobody"))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      } finally {
        empty.shutdownNow();
      }
      await().atMost(WAIT).until(() -> pool(lines(), "shop/grpc-empty").size() == 1);
      List<JsonObject> calls = pool(lines(), "shop/grpc");
      assertThat(calls).hasSize(2).allMatch(l -> "gRPC".equals(l.getString("protocol")));
      assertThat(calls.get(0).getString("grpcStatus")).isEqualTo("0");
      assertThat(calls.get(0).getInteger("status")).isEqualTo(200);
      assertThat(calls.get(1).getString("grpcStatus")).isEqualTo("14"); // the member's own
      JsonObject local = pool(lines(), "shop/grpc-empty").get(0);
      assertThat(local.getString("grpcStatus")).isEqualTo("14"); // the proxy's: no member
      assertThat(local.getBoolean("local")).isTrue();
    } finally {
      if (channel != null) {
        channel.shutdownNow();
      }
      echo.stop();
    }
  }

  private void http2Get(String host, String path) throws Exception {
    HttpClient h2 = h2PriorKnowledge(vertx);
    RequestOptions get =
        new RequestOptions()
            .setServer(SocketAddress.inetSocketAddress(dp.trafficPort(), "127.0.0.1"))
            .setHost(host)
            .setPort(80)
            .setMethod(HttpMethod.GET)
            .setURI(path);
    int status =
        new OnEventLoop(vertx)
            .call(() -> h2.request(get).compose(r -> r.send()).map(r -> r.statusCode()))
            .await(10, TimeUnit.SECONDS);
    assertThat(status).isEqualTo(200);
    h2.close().await();
  }

  private List<JsonObject> lines() throws IOException {
    if (!Files.exists(file)) {
      return List.of();
    }
    return Files.readAllLines(file).stream().map(JsonObject::new).toList();
  }

  private static List<JsonObject> pool(List<JsonObject> lines, String pool) {
    return lines.stream().filter(l -> pool.equals(l.getString("pool"))).toList();
  }

  private static boolean path(JsonObject line, String path) {
    return path.equals(line.getString("path"));
  }
}
