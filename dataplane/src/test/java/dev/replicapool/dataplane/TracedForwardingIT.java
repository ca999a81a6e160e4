package dev.replicapool.dataplane;

import static dev.replicapool.testing.Jaeger.number;
import static dev.replicapool.testing.Jaeger.parentOf;
import static dev.replicapool.testing.Jaeger.tag;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.dataplane.accesslog.AccessLogConfig;
import dev.replicapool.dataplane.tracing.TracingConfig;
import dev.replicapool.testing.Jaeger;
import dev.replicapool.testing.OnEventLoop;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data plane as a trace participant, seen in a real Jaeger (OTLP/HTTP): the client's trace goes
 * on through a SERVER span per request and a CLIENT span per try, and each member gets the
 * traceparent of the try that reached it. New traces are sampled at 0 here, so only a client's
 * sampled traceparent is recorded (parent-based sampling).
 */
class TracedForwardingIT extends DataPlaneTestBase {
  static final String CLIENT_SPAN = "00f067aa0ba902b7";

  @TempDir static Path dir;
  static Jaeger jaeger;

  @BeforeAll
  static void startJaeger() throws Exception {
    assertThat(Jaeger.BIN).as("jaeger: run scripts/provision-jaeger.sh").isExecutable();
    jaeger = new Jaeger(dir);
  }

  @AfterAll
  static void stopJaeger() throws Exception {
    jaeger.close();
  }

  @BeforeEach
  void tracedDataPlane() {
    startDataPlane(settings(), AccessLogConfig.OFF, new TracingConfig(jaeger.otlp(), 0.0, 2048));
  }

  @Test
  void aHedgedRequestIsOneTraceWithTwoClientSpansTheLoserCancelled() throws Exception {
    TestMember slow = member("slow");
    TestMember fast = member("fast");
    slow.delayMillis = 1_500;
    publish(
        SnapshotBuilder.pool("shop/hedged")
            .hosts("hedged.example")
            .hedgeAfterMillis(50, 1)
            .members(slow.snapshot(1), fast.snapshot(1)));

    // Round robin: of two requests in a row, one goes first to the slow member and is hedged.
    List<String> traces = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      String trace = newTraceId();
      traces.add(trace);
      HttpClientResponse r = send(HttpVersion.HTTP_1_1, "hedged.example", sampled(trace));
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.getHeader("x-replica")).isEqualTo("fast");
    }

    Map<String, JsonArray> byTrace = recorded(traces, spans -> spans.size() >= 2);
    String hedged =
        traces.stream().filter(t -> byTrace.get(t).size() == 3).findFirst().orElseThrow();
    Spans s = new Spans(byTrace.get(hedged));
    System.out.println("FIGURE hedged trace " + hedged + " in jaeger:\n" + s.describe());
    JsonObject server = s.one("server");
    assertThat(parentOf(server))
        .as("the client's span is the server span's parent")
        .isEqualTo(CLIENT_SPAN);
    assertThat(number(server, "http.response.status_code")).isEqualTo(200L);
    List<JsonObject> tries = s.all("client");
    assertThat(tries).hasSize(2).allMatch(t -> server.getString("spanID").equals(parentOf(t)));
    JsonObject first = s.toPort(tries, slow.port);
    JsonObject hedge = s.toPort(tries, fast.port);
    assertThat(tag(first, "error.type")).as("the loser is cancelled").isEqualTo("cancelled");
    assertThat(number(first, "http.request.resend_count")).isNull();
    assertThat(number(hedge, "http.response.status_code")).isEqualTo(200L);
    assertThat(number(hedge, "http.request.resend_count")).isEqualTo(1L);
    assertThat(tag(hedge, "error.type")).isNull();

    // Each member got the traceparent of its own try, and the client's tracestate unchanged.
    assertThat(traceparentsSeen(slow)).contains(traceparent(hedged, first));
    assertThat(traceparentsSeen(fast)).contains(traceparent(hedged, hedge));
    assertThat(slow.headersSeen.get(0).getAll("traceparent")).hasSize(1);
    assertThat(fast.headersSeen).allMatch(h -> "vendor=1".equals(h.get("tracestate")));
  }

  @Test
  void anHttp2RequestRetriedOnAnotherMemberIsOneTraceWithATryEach() throws Exception {
    TestMember gone = member("gone");
    TestMember up = member("up");
    publish(
        SnapshotBuilder.pool("shop/h2")
            .hosts("h2.example")
            .appProtocol("kubernetes.io/h2c")
            .members(gone.snapshot(1), up.snapshot(1)));
    gone.kill();

    List<String> traces = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      String trace = newTraceId();
      traces.add(trace);
      HttpClientResponse r = send(HttpVersion.HTTP_2, "h2.example", sampled(trace));
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.version()).isEqualTo(HttpVersion.HTTP_2);
    }
    assertThat(up.versionsSeen).contains(io.vertx.core.http.HttpVersion.HTTP_2);

    Map<String, JsonArray> byTrace = recorded(traces, spans -> spans.size() >= 2);
    String retried =
        traces.stream().filter(t -> byTrace.get(t).size() == 3).findFirst().orElseThrow();
    Spans s = new Spans(byTrace.get(retried));
    List<JsonObject> tries = s.all("client");
    JsonObject failed = s.toPort(tries, gone.port);
    JsonObject answered = s.toPort(tries, up.port);
    assertThat(tag(failed, "error.type")).isEqualTo("connect_failure");
    assertThat(number(answered, "http.request.resend_count")).isEqualTo(1L);
    assertThat(number(answered, "http.response.status_code")).isEqualTo(200L);
    assertThat(traceparentsSeen(up)).contains(traceparent(retried, answered));
  }

  @Test
  void anUnsampledOrAbsentTraceIsPassedOnWithTheDataPlanesOwnSpanAndNotRecorded() throws Exception {
    TestMember m = member("m");
    publish(SnapshotBuilder.pool("shop/quiet").hosts("quiet.example").members(m.snapshot(1)));
    String trace = newTraceId();
    MultiMap unsampled =
        MultiMap.caseInsensitiveMultiMap()
            .add("traceparent", "00-" + trace + "-" + CLIENT_SPAN + "-00");
    assertThat(send(HttpVersion.HTTP_1_1, "quiet.example", unsampled).statusCode()).isEqualTo(200);
    assertThat(
            send(HttpVersion.HTTP_1_1, "quiet.example", MultiMap.caseInsensitiveMultiMap())
                .statusCode())
        .isEqualTo(200);

    List<String> seen = traceparentsSeen(m);
    assertThat(seen).hasSize(2);
    // The client's unsampled trace goes on, the data plane's span as the member's parent.
    assertThat(seen.get(0)).startsWith("00-" + trace + "-").endsWith("-00");
    assertThat(seen.get(0)).doesNotContain(CLIENT_SPAN);
    // No traceparent came: a new trace, not sampled (ratio 0).
    assertThat(seen.get(1)).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-00");
    // A sampled request afterwards is in Jaeger; the unsampled one never was.
    String sampled = newTraceId();
    assertThat(send(HttpVersion.HTTP_1_1, "quiet.example", sampled(sampled)).statusCode())
        .isEqualTo(200);
    recorded(List.of(sampled), spans -> spans.size() == 2);
    assertThat(jaeger.get("/api/traces/" + trace).statusCode()).isEqualTo(404);
  }

  // ---------------------------------------------------------------------------------------------

  /** A client's sampled traceparent of {@code trace}, and a tracestate. */
  static MultiMap sampled(String trace) {
    return MultiMap.caseInsensitiveMultiMap()
        .add("traceparent", "00-" + trace + "-" + CLIENT_SPAN + "-01")
        .add("tracestate", "vendor=1");
  }

  /** A GET with {@code headers} to {@code host} through the data plane (HTTP/2: h2c). */
  HttpClientResponse send(HttpVersion version, String host, MultiMap headers) throws Exception {
    HttpClient c =
        vertx.createHttpClient(
            new HttpClientOptions().setProtocolVersion(version).setHttp2ClearTextUpgrade(false));
    RequestOptions get =
        new RequestOptions()
            .setServer(SocketAddress.inetSocketAddress(dp.trafficPort(), "127.0.0.1"))
            .setHost(host)
            .setPort(80)
            .setMethod(HttpMethod.GET)
            .setURI("/t")
            .setHeaders(headers);
    try {
      return new OnEventLoop(vertx)
          .call(() -> c.request(get).compose(r -> r.send()).compose(r -> r.body().map(b -> r)))
          .await(10, TimeUnit.SECONDS);
    } finally {
      c.close().await();
    }
  }

  static String newTraceId() {
    byte[] b = new byte[16];
    ThreadLocalRandom.current().nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  /** Each trace's spans once Jaeger has them all ({@code complete}). */
  static Map<String, JsonArray> recorded(
      List<String> traces, java.util.function.Predicate<JsonArray> complete) {
    return await("the traces in jaeger")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(
            () -> {
              Map<String, JsonArray> m = new java.util.HashMap<>();
              for (String t : traces) {
                m.put(t, jaeger.spans(t));
              }
              return m;
            },
            m -> m.values().stream().allMatch(complete));
  }

  static List<String> traceparentsSeen(TestMember m) {
    return m.headersSeen.stream().map(h -> h.get("traceparent")).toList();
  }

  static String traceparent(String trace, JsonObject span) {
    return "00-" + trace + "-" + span.getString("spanID") + "-01";
  }

  /** One trace's spans by kind. */
  record Spans(JsonArray spans) {
    List<JsonObject> all(String kind) {
      return spans.stream()
          .map(o -> (JsonObject) o)
          .filter(s -> kind.equals(tag(s, "span.kind")))
          .toList();
    }

    /** One line per span as Jaeger has it: kind, name, member port, duration, outcome. */
    String describe() {
      StringBuilder b = new StringBuilder();
      for (Object o : spans) {
        JsonObject s = (JsonObject) o;
        b.append(
            String.format(
                "  %-6s %-4s span %s parent %s port %s %6.1f ms status %s error.type %s resend %s%n",
                tag(s, "span.kind"),
                s.getString("operationName"),
                s.getString("spanID"),
                parentOf(s),
                number(s, "server.port"),
                s.getLong("duration") / 1000.0,
                number(s, "http.response.status_code"),
                tag(s, "error.type"),
                number(s, "http.request.resend_count")));
      }
      return b.toString();
    }

    JsonObject one(String kind) {
      assertThat(all(kind)).hasSize(1);
      return all(kind).get(0);
    }

    JsonObject toPort(List<JsonObject> tries, int port) {
      Optional<JsonObject> t =
          tries.stream()
              .filter(s -> Long.valueOf(port).equals(number(s, "server.port")))
              .findFirst();
      assertThat(t).as("a try to port " + port).isPresent();
      return t.get();
    }
  }
}
