package dev.replicapool.dataplane.accesslog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.AccessLog;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AccessLogFormatTest {
  static final long T0 = 1_000_000_000L;
  static final long MILLIS = Instant.parse("2026-12-04T14:00:00.125Z").toEpochMilli();

  static AccessRecord record() {
    return new AccessRecord(ProxyObserver.NONE, false, MILLIS, T0, "shop/web")
        .request("10.1.2.3", "HTTP/1.1", "GET", "web.example", "/items/7?page=2")
        .traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  }

  @Test
  void aRetriedRequestAsJson() {
    AccessRecord r = record();
    r.bytesIn(0);
    r.tried("10.0.0.9:8001", "5xx", 3_000_000);
    r.retry("shop/web", "status_503");
    r.tried("10.0.0.9:8002", "2xx", 2_500_000);
    r.firstByte(T0 + 6_000_000);
    r.bytesOut(512);
    r.end(200, T0 + 6_250_000);
    JsonObject j = new JsonObject(AccessLogFormat.JSON.line(r, false));
    assertThat(j.getString("time")).isEqualTo("2026-12-04T14:00:00.125Z");
    assertThat(j.getString("path")).isEqualTo("/items/7");
    assertThat(j.getInteger("status")).isEqualTo(200);
    assertThat(j.getDouble("durationMs")).isEqualTo(6.25);
    assertThat(j.getDouble("ttfbMs")).isEqualTo(6.0);
    assertThat(j.getInteger("retries")).isEqualTo(1);
    assertThat(j.getJsonArray("tries").getJsonObject(0).getString("member"))
        .isEqualTo("10.0.0.9:8001");
    assertThat(j.getJsonArray("tries").getJsonObject(0).getDouble("ms")).isEqualTo(3.0);
    assertThat(j.getString("flags")).isEqualTo("-");
    assertThat(j.getString("traceId")).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(j.getBoolean("local")).isFalse();
  }

  @Test
  void theQueryStaysWhenAsked() {
    AccessRecord r = record();
    r.end(200, T0);
    assertThat(new JsonObject(AccessLogFormat.JSON.line(r, true)).getString("path"))
        .isEqualTo("/items/7?page=2");
  }

  @Test
  void aLocalAnswerWithoutMembersIsUhInText() {
    AccessRecord r = record();
    r.local(null);
    r.end(503, T0 + 1_000_000);
    assertThat(AccessLogFormat.TEXT.line(r, false))
        .isEqualTo(
            "[2026-12-04T14:00:00.125Z] \"GET web.example/items/7 HTTP/1.1\" 503 UH 0 0 1.0 1.0"
                + " 10.1.2.3 shop/web - retries=0 hedges=0 4bf92f3577b34da6a3ce929d0e0e4736");
  }

  @Test
  void flagsFollowFromTheCourseOfTheRequest() {
    assertThat(flags(r -> r.queue("p", "overflow"), 503)).isEqualTo("UO");
    assertThat(flags(r -> r.queue("p", "timeout"), 503)).isEqualTo("QT");
    assertThat(flags(r -> r.tried("10.0.0.9:1", "connect_failure", 1), 502)).isEqualTo("UF");
    assertThat(
            flags(
                r -> {
                  r.tried("10.0.0.9:1", "connect_failure", 1);
                  r.tried("10.0.0.9:2", "reset", 1);
                },
                502))
        .isEqualTo("UC,URX");
    assertThat(flags(r -> r.tried("10.0.0.9:1", "timeout", 1), 504)).isEqualTo("UT");
    assertThat(flags(r -> r.flag(AccessFlag.DT), 504)).isEqualTo("DT");
    assertThat(flags(r -> r.local(AccessFlag.LP), 508)).isEqualTo("LP");
    assertThat(flags(r -> r.local(AccessFlag.NR), 404)).isEqualTo("NR");
  }

  @Test
  void aClientThatWentAwayIsDc() {
    AccessRecord r = record();
    r.tried("10.0.0.9:1", "aborted", 1);
    r.end(499, T0);
    assertThat(AccessFlag.join(r.flags)).isEqualTo("DC");
    assertThat(r.isError()).isTrue();
  }

  @Test
  void aSuccessIsNoErrorForErrorsOnly() {
    AccessRecord r = record();
    r.tried("10.0.0.9:1", "2xx", 1);
    r.end(200, T0);
    assertThat(r.isError()).isFalse();
    AccessRecord s = record();
    s.tried("10.0.0.9:1", "5xx", 1);
    s.end(503, T0);
    assertThat(s.isError()).isTrue();
  }

  @Test
  void aTryThatEndsAfterTheLineWasHandedOverIsNotNoted() {
    AccessRecord r = record();
    r.tried("10.0.0.9:1", "2xx", 1);
    r.end(200, T0);
    r.tried("10.0.0.9:2", "cancelled", 1); // the writer thread may be reading the tries now
    r.retry("p", "reset");
    assertThat(r.tries).hasSize(1);
    assertThat(r.retries).isZero();
  }

  @Test
  void aMalformedTraceparentGivesNoTraceId() {
    AccessRecord r =
        new AccessRecord(ProxyObserver.NONE, false, MILLIS, T0, "p").traceparent("garbage");
    r.end(200, T0);
    assertThat(new JsonObject(AccessLogFormat.JSON.line(r, false)).getString("traceId")).isNull();
  }

  /** A local answer with {@code status} after {@code course}: its flags. */
  private static String flags(java.util.function.Consumer<AccessRecord> course, int status) {
    AccessRecord r = record();
    course.accept(r);
    r.local(null);
    r.end(status, T0);
    return AccessFlag.join(r.flags);
  }

  static AccessLog spec(boolean enabled, double rate, boolean errorsOnly) {
    AccessLog a = new AccessLog();
    a.enabled = enabled;
    a.sampleRate = rate;
    a.errorsOnly = errorsOnly;
    return a;
  }
}
