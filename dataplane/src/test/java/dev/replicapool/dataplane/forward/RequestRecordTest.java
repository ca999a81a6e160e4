package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.dataplane.accesslog.AccessFlag;
import dev.replicapool.dataplane.accesslog.AccessLog;
import dev.replicapool.dataplane.accesslog.AccessLogFormat;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.TestEndpoints;
import dev.replicapool.dataplane.tracing.InMemoryTracing;
import dev.replicapool.dataplane.tracing.RequestTrace;
import dev.replicapool.dataplane.tracing.Tracing;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What is written down about one request, as both exchanges drive it: the metrics count it once,
 * its access-log line carries what the exchange noted, its trace stands in front of both, and a
 * request neither logged nor traced still counts.
 */
class RequestRecordTest {
  static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final long MS = 1_000_000L;

  final AtomicLong clock = new AtomicLong(1_000 * MS);
  final List<String> lines = new CopyOnWriteArrayList<>();
  final AccessLog accessLog =
      new AccessLog(
          new AccessLog.Options(AccessLogFormat.JSON, false, false, 16),
          new AccessLog.Sink() {
            @Override
            public void write(String line) {
              lines.add(line);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
          },
          () -> 0L);
  final InMemorySpanExporter spans = InMemorySpanExporter.create();
  final Tracing tracing = InMemoryTracing.to(spans);
  final List<String> metrics = new ArrayList<>();
  final ProxyObserver counted =
      new ProxyObserver() {
        @Override
        public void attempt(String pool, Endpoint member, String outcome, long nanos) {
          metrics.add("attempt " + member.port() + " " + outcome);
        }

        @Override
        public void response(String pool, int status, long nanos) {
          metrics.add("response " + pool + " " + status + " " + nanos / MS + " ms");
        }
      };
  final Endpoint member = TestEndpoints.healthy("10.0.0.1", 8001);

  @AfterEach
  void close() {
    accessLog.close();
    tracing.close();
  }

  @Test
  void aRequestNeitherLoggedNorTracedIsCountedOnceAndNotesNothing() {
    RequestRecord r = record(null, null);
    assertThat(r.observer()).isSameAs(counted);
    assertThat(r.log()).isNull();
    assertThat(r.traceparentFor(member, clock.get())).isNull();
    r.bytesIn(10); // no-ops: nothing to note them on
    r.flag(AccessFlag.UC);
    r.grpcStatus("14");
    clock.addAndGet(7 * MS);
    r.end(502, clock.get());
    r.end(200, clock.get() + MS); // a second end (a late event) counts nothing
    assertThat(r.ended()).isTrue();
    assertThat(metrics).containsExactly("response p 502 7 ms");
    assertThat(lines).isEmpty();
  }

  @Test
  void aLoggedRequestsLineCarriesWhatTheExchangeNotedAndTheTriesThroughItsObserver() {
    RequestRecord r = record(on(), null);
    r.log().request("10.1.2.3", "gRPC", "POST", "svc", "/pkg.S/M");
    r.bytesIn(27);
    r.observer().attempt("p", member, "reset", 3 * MS); // a try's end, as a try reports it
    clock.addAndGet(5 * MS);
    r.firstByte(clock.get());
    r.bytesOut(100);
    r.bytesOut(20);
    r.flag(AccessFlag.UC);
    r.flag(null); // a try outcome with no flag of its own
    r.grpcStatus("14");
    clock.addAndGet(MS);
    r.end(502, clock.get());

    await().atMost(Duration.ofSeconds(10)).until(() -> lines.size() == 1);
    JsonObject j = new JsonObject(lines.get(0));
    assertThat(j.getInteger("status")).isEqualTo(502);
    assertThat(j.getString("protocol")).isEqualTo("gRPC");
    assertThat(j.getInteger("bytesIn")).isEqualTo(27);
    assertThat(j.getInteger("bytesOut")).isEqualTo(120);
    assertThat(j.getString("grpcStatus")).isEqualTo("14");
    assertThat(j.getString("flags")).isEqualTo("UC");
    assertThat(j.getDouble("ttfbMs")).isEqualTo(5.0);
    assertThat(j.getDouble("durationMs")).isEqualTo(6.0);
    assertThat(j.getJsonArray("tries").getJsonObject(0).getString("member"))
        .isEqualTo("10.0.0.1:8001");
    // The record passed the try and the response on to the metrics behind it.
    assertThat(metrics).containsExactly("attempt 8001 reset", "response p 502 6 ms");
  }

  @Test
  void aTracedRequestsTraceStandsInFrontAndItsIdIsOnTheLine() {
    RequestRecord r =
        record(
            on(),
            new RequestTrace.Incoming(
                "00-" + TRACE + "-00f067aa0ba902b7-01", null, "GET", "http", "/a", "h"));
    assertThat(r.observer()).isSameAs(r.trace());
    String parent = r.traceparentFor(member, clock.get());
    assertThat(parent).startsWith("00-" + TRACE + "-");
    r.observer().attempt("p", member, "2xx", MS);
    r.end(200, clock.get() + 2 * MS);

    await().atMost(Duration.ofSeconds(10)).until(() -> lines.size() == 1);
    assertThat(new JsonObject(lines.get(0)).getString("traceId")).isEqualTo(TRACE);
    assertThat(spans.getFinishedSpanItems()).hasSize(2); // the try's span and the request's
    assertThat(metrics).containsExactly("attempt 8001 2xx", "response p 200 2 ms");
  }

  @Test
  void tracingOffLeavesTheIncomingTraceAside() {
    RequestRecord r =
        new RequestRecord(
            accessLog,
            null,
            counted,
            clock::get,
            "p",
            null,
            clock.get(),
            new RequestTrace.Incoming(null, null, "GET", "http", "/", "h"));
    assertThat(r.trace()).isNull();
    assertThat(r.observer()).isSameAs(counted);
  }

  private RequestRecord record(
      dev.replicapool.api.v1alpha1.AccessLog spec, RequestTrace.Incoming traced) {
    return new RequestRecord(
        accessLog, tracing, counted, clock::get, "p", spec, clock.get(), traced);
  }

  private static dev.replicapool.api.v1alpha1.AccessLog on() {
    dev.replicapool.api.v1alpha1.AccessLog a = new dev.replicapool.api.v1alpha1.AccessLog();
    a.enabled = true;
    return a;
  }
}
