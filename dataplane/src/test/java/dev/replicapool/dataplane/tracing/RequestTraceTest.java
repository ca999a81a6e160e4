package dev.replicapool.dataplane.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.TestEndpoints;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A request's trace event by event, as the forwarding paths drive it, with a clock the test moves:
 * which span each try gets, what its member is sent, how each span ends, and that every event still
 * reaches the observer behind (the access log, the metrics).
 */
class RequestTraceTest {
  static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String CLIENT_SPAN = "00f067aa0ba902b7";

  final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  final Tracing tracing =
      new Tracing(new TracingConfig(null, 0.0, 64), SimpleSpanProcessor.create(exporter));
  final AtomicLong clock = new AtomicLong(1_000_000_000L);
  final List<String> behind = new ArrayList<>();
  final Endpoint a = member("10.0.0.1");
  final Endpoint b = member("10.0.0.2");

  final ProxyObserver next =
      new ProxyObserver() {
        @Override
        public void attempt(String pool, Endpoint member, String outcome, long nanos) {
          behind.add("attempt " + member.host() + " " + outcome);
        }

        @Override
        public void answered(Endpoint member, int status) {
          behind.add("answered " + member.host() + " " + status);
        }

        @Override
        public void response(String pool, int status, long nanos) {
          behind.add("response " + status);
        }

        @Override
        public void hedge(String pool, String outcome) {
          behind.add("hedge " + outcome);
        }
      };

  @AfterEach
  void close() {
    tracing.close();
  }

  @Test
  void eachTryCarriesItsOwnSpanAsTheMembersParentAndEndsWithItsOutcome() {
    RequestTrace t = trace("00-" + TRACE + "-" + CLIENT_SPAN + "-01");
    String first = t.traceparentFor(a, clock.get());
    clock.addAndGet(ms(30));
    t.attempt("shop/p", a, "reset", ms(30));
    String second = t.traceparentFor(b, clock.get());
    clock.addAndGet(ms(5));
    t.answered(b, 200);
    t.attempt("shop/p", b, "2xx", ms(5));
    t.response("shop/p", 200, ms(35));

    List<SpanData> spans = finished();
    SpanData server = kind(spans, SpanKind.SERVER).get(0);
    List<SpanData> tries = kind(spans, SpanKind.CLIENT);
    assertThat(server.getParentSpanId()).isEqualTo(CLIENT_SPAN);
    assertThat(tries).hasSize(2);
    assertThat(first).isEqualTo("00-" + TRACE + "-" + tries.get(0).getSpanId() + "-01");
    assertThat(second).isEqualTo("00-" + TRACE + "-" + tries.get(1).getSpanId() + "-01");
    assertThat(attr(tries.get(0), "error.type")).isEqualTo("reset");
    assertThat(tries.get(0).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(tries.get(1).getAttributes().get(AttributeKey.longKey("http.response.status_code")))
        .isEqualTo(200L);
    assertThat(tries.get(1).getAttributes().get(AttributeKey.longKey("http.request.resend_count")))
        .isEqualTo(1L);
    // Timed by the forwarding clock: the first try took 30 ms, the request 35 ms.
    assertThat(durationMs(tries.get(0))).isEqualTo(30);
    assertThat(durationMs(server)).isEqualTo(35);
    assertThat(behind)
        .containsExactly(
            "attempt 10.0.0.1 reset",
            "answered 10.0.0.2 200",
            "attempt 10.0.0.2 2xx",
            "response 200");
  }

  @Test
  void aHedgeThatLosesEndsCancelledAndATryStillOutAtTheEndIsCancelledToo() {
    RequestTrace t = trace("00-" + TRACE + "-" + CLIENT_SPAN + "-01");
    t.traceparentFor(a, clock.get());
    clock.addAndGet(ms(50));
    t.hedge("shop/p", "sent");
    t.traceparentFor(b, clock.get());
    clock.addAndGet(ms(10));
    t.answered(b, 200);
    t.attempt("shop/p", b, "2xx", ms(10));
    t.response("shop/p", 200, ms(60)); // the first try is never reported: cancelled with the end
    t.attempt("shop/p", a, "cancelled", ms(60)); // late: no second span

    List<SpanData> tries = kind(finished(), SpanKind.CLIENT);
    assertThat(tries).hasSize(2);
    assertThat(tries)
        .extracting(s -> attr(s, "server.address"), s -> attr(s, "error.type"))
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("10.0.0.1", "cancelled"),
            org.assertj.core.groups.Tuple.tuple("10.0.0.2", null));
    assertThat(behind).contains("hedge sent", "attempt 10.0.0.1 cancelled");
  }

  @Test
  void aTryThatNeverGotAConnectionStillHasItsSpan() {
    RequestTrace t = trace(null);
    clock.addAndGet(ms(3));
    t.attempt("shop/p", a, "connect_failure", ms(3));
    t.response("shop/p", 502, ms(3));
    // No traceparent came and new traces are sampled at 0: nothing is recorded...
    assertThat(finished()).isEmpty();
    // ...unless the client's traceparent is sampled.
    RequestTrace sampled = trace("00-" + TRACE + "-" + CLIENT_SPAN + "-01");
    sampled.attempt("shop/p", a, "connect_failure", ms(3));
    sampled.response("shop/p", 502, ms(3));
    List<SpanData> spans = finished();
    SpanData server = kind(spans, SpanKind.SERVER).get(0);
    assertThat(kind(spans, SpanKind.CLIENT))
        .singleElement()
        .satisfies(s -> assertThat(attr(s, "error.type")).isEqualTo("connect_failure"));
    assertThat(attr(server, "error.type")).isEqualTo("502");
    assertThat(server.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
  }

  @Test
  void anUnsampledOrInvalidTraceparentGoesOnWithTheDataPlanesSpanId() {
    RequestTrace unsampled = trace("00-" + TRACE + "-" + CLIENT_SPAN + "-00");
    String sent = unsampled.traceparentFor(a, clock.get());
    assertThat(sent).startsWith("00-" + TRACE + "-").endsWith("-00").doesNotContain(CLIENT_SPAN);
    RequestTrace invalid = trace("00-" + TRACE.toUpperCase() + "-" + CLIENT_SPAN + "-01");
    assertThat(invalid.traceId()).isNotEqualTo(TRACE); // a new trace, not a repaired one
    assertThat(invalid.tracestate()).isNull(); // the tracestate of an invalid parent is dropped
  }

  // ---------------------------------------------------------------------------------------------

  RequestTrace trace(String traceparent) {
    return new RequestTrace(
        tracing,
        next,
        clock::get,
        clock.get(),
        new RequestTrace.Incoming(traceparent, "vendor=1", "GET", "http", "/x?q=1", "front"));
  }

  List<SpanData> finished() {
    tracing.flush();
    List<SpanData> s = exporter.getFinishedSpanItems();
    exporter.reset();
    return s;
  }

  static List<SpanData> kind(List<SpanData> spans, SpanKind kind) {
    return spans.stream()
        .filter(s -> s.getKind() == kind)
        .sorted(java.util.Comparator.comparingLong(SpanData::getStartEpochNanos))
        .toList();
  }

  static String attr(SpanData s, String key) {
    return s.getAttributes().get(AttributeKey.stringKey(key));
  }

  static long durationMs(SpanData s) {
    return TimeUnit.NANOSECONDS.toMillis(s.getEndEpochNanos() - s.getStartEpochNanos());
  }

  static long ms(long n) {
    return TimeUnit.MILLISECONDS.toNanos(n);
  }

  static Endpoint member(String host) {
    return TestEndpoints.healthy(host, 80);
  }
}
