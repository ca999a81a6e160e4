package dev.replicapool.dataplane.tracing;

import static dev.replicapool.testing.Jaeger.number;
import static dev.replicapool.testing.Jaeger.parentOf;
import static dev.replicapool.testing.Jaeger.tag;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.testing.Jaeger;
import io.opentelemetry.api.trace.Span;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spans of a retried request, exported by the SDK's OTLP/HTTP exporter (JDK sender) to a real
 * Jaeger and read back from its query API: one trace under the client's trace id, the SERVER span a
 * child of the client's span, a CLIENT span per try with its attributes.
 */
class TracingJaegerIT {
  static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String CLIENT_SPAN = "00f067aa0ba902b7";

  @TempDir Path dir;

  @Test
  void aRetriedRequestShowsInJaegerAsOneTraceWithTwoTries() throws Exception {
    assertThat(Jaeger.BIN).as("jaeger: run scripts/provision-jaeger.sh").isExecutable();
    try (Jaeger jaeger = new Jaeger(dir)) {
      Tracing tracing = Tracing.start(new TracingConfig(jaeger.otlp(), 0.0, 64));
      TraceParent parent = TraceParent.parse("00-" + TRACE + "-" + CLIENT_SPAN + "-01");
      Span server = tracing.server(parent, null, "GET", "http", "/x", "front.example");
      var first = new TryAttributes.Try("GET", "http", "/x", "127.0.0.1", 9001, 0, "5xx", 503);
      Span try1 = tracing.startTry(server, first);
      Tracing.endTry(try1, first);
      var second = new TryAttributes.Try("GET", "http", "/x", "127.0.0.1", 9002, 1, "2xx", 200);
      Span try2 = tracing.startTry(server, second);
      String sent = Tracing.traceparent(try2);
      Tracing.endTry(try2, second);
      server.end();
      tracing.close();

      JsonArray spans =
          await("the trace in jaeger")
              .atMost(Duration.ofSeconds(30))
              .pollInterval(Duration.ofMillis(200))
              .ignoreExceptions()
              .until(() -> jaeger.spans(TRACE), s -> s.size() == 3);

      Map<String, JsonObject> bySpanId = new HashMap<>();
      spans.forEach(o -> bySpanId.put(((JsonObject) o).getString("spanID"), (JsonObject) o));
      JsonObject s = bySpanId.get(server.getSpanContext().getSpanId());
      assertThat(tag(s, "span.kind")).isEqualTo("server");
      assertThat(parentOf(s)).isEqualTo(CLIENT_SPAN);
      JsonObject t1 = bySpanId.get(try1.getSpanContext().getSpanId());
      JsonObject t2 = bySpanId.get(try2.getSpanContext().getSpanId());
      assertThat(parentOf(t1)).isEqualTo(s.getString("spanID"));
      assertThat(parentOf(t2)).isEqualTo(s.getString("spanID"));
      assertThat(tag(t1, "span.kind")).isEqualTo("client");
      assertThat(tag(t1, "error.type")).isEqualTo("503");
      assertThat(tag(t1, "http.request.resend_count")).isNull();
      assertThat(number(t2, "http.request.resend_count")).isEqualTo(1L);
      assertThat(number(t2, "server.port")).isEqualTo(9002L);
      assertThat(number(t2, "http.response.status_code")).isEqualTo(200L);
      assertThat(sent).isEqualTo("00-" + TRACE + "-" + t2.getString("spanID") + "-01");
    }
  }
}
