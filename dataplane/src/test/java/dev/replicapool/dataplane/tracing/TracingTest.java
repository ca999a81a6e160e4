package dev.replicapool.dataplane.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The spans of one request with a retry, through the real SDK into an in-memory exporter. */
class TracingTest {
  static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String CLIENT_SPAN = "00f067aa0ba902b7";

  @Test
  void aRetriedRequestIsOneServerSpanWithAClientSpanPerTry() {
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    // Ratio 0: only the client's sampled flag can make this trace recorded (parent-based).
    Tracing tracing =
        new Tracing(new TracingConfig(null, 0.0, 16), SimpleSpanProcessor.create(exporter));
    TraceParent parent = TraceParent.parse("00-" + TRACE + "-" + CLIENT_SPAN + "-01");

    Span server = tracing.server(parent, "vendor=abc,other=1", "GET", "http", "/x?q=1", "front");
    var first = new TryAttributes.Try("GET", "http", "/x?q=1", "127.0.0.1", 9001, 0, "5xx", 503);
    Span try1 = tracing.startTry(server, first);
    String sent1 = Tracing.traceparent(try1);
    Tracing.endTry(try1, first);
    var second = new TryAttributes.Try("GET", "http", "/x?q=1", "127.0.0.1", 9002, 1, "2xx", 200);
    Span try2 = tracing.startTry(server, second);
    String sent2 = Tracing.traceparent(try2);
    assertThat(Tracing.tracestate(try2)).isEqualTo("vendor=abc,other=1");
    Tracing.endTry(try2, second);
    server.end();
    tracing.flush();

    List<SpanData> spans = exporter.getFinishedSpanItems();
    tracing.close();
    assertThat(spans).hasSize(3).allMatch(s -> s.getTraceId().equals(TRACE));
    SpanData s = spans.stream().filter(x -> x.getKind() == SpanKind.SERVER).findFirst().get();
    assertThat(s.getParentSpanId()).isEqualTo(CLIENT_SPAN);
    List<SpanData> tries = spans.stream().filter(x -> x.getKind() == SpanKind.CLIENT).toList();
    assertThat(tries).hasSize(2).allMatch(t -> t.getParentSpanId().equals(s.getSpanId()));
    SpanData t1 =
        tries.stream().filter(t -> t.getSpanId().equals(sent1.substring(36, 52))).findFirst().get();
    SpanData t2 =
        tries.stream().filter(t -> t.getSpanId().equals(sent2.substring(36, 52))).findFirst().get();
    assertThat(t1.getAttributes().get(AttributeKey.stringKey("error.type"))).isEqualTo("503");
    assertThat(t1.getAttributes().get(AttributeKey.longKey("http.request.resend_count"))).isNull();
    assertThat(t2.getAttributes().get(AttributeKey.longKey("http.request.resend_count")))
        .isEqualTo(1L);
    assertThat(t2.getAttributes().get(AttributeKey.longKey("server.port"))).isEqualTo(9002L);
    assertThat(sent2).isEqualTo("00-" + TRACE + "-" + t2.getSpanId() + "-01");
  }

  @Test
  void withoutAParentAZeroRatioRecordsNothing() {
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    Tracing tracing =
        new Tracing(new TracingConfig(null, 0.0, 16), SimpleSpanProcessor.create(exporter));
    Span server = tracing.server(null, null, "GET", "http", "/", "front");
    assertThat(server.getSpanContext().isSampled()).isFalse();
    server.end();
    tracing.close();
    assertThat(exporter.getFinishedSpanItems()).isEmpty();
  }

  @Test
  void offMeansNoTracingAtAll() {
    assertThat(Tracing.start(TracingConfig.OFF)).isNull();
  }
}
