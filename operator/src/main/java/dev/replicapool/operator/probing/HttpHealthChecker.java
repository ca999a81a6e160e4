package dev.replicapool.operator.probing;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

/**
 * HTTP GET of the spec's path; passes on an expected status whose body has arrived. Speaks
 * HTTP/1.1, HTTP/2 with prior knowledge, or either over TLS (by ALPN), as the pool's members do;
 * the connection is kept alive between probes.
 */
final class HttpHealthChecker implements HealthChecker {
  private static final Handler<Buffer> DISCARD = b -> {};

  private final HttpMemberChecks checks;

  HttpHealthChecker(ProbeClients clients, String userAgent) {
    this.checks = new HttpMemberChecks(clients, userAgent);
  }

  @Override
  public MemberCheck prepare(String host, int port, ProbeSpec spec, long timeoutMillis) {
    RequestOptions options =
        checks
            .target(host, port, spec)
            .setMethod(HttpMethod.GET)
            .setURI(spec.path())
            .setFollowRedirects(false)
            .putHeader("User-Agent", checks.userAgent());
    return checks.prepare(
        spec, options, HttpClientRequest::send, (resp, done) -> read(resp, spec, done));
  }

  private static void read(HttpClientResponse resp, ProbeSpec spec, Handler<CheckOutcome> done) {
    int code = resp.statusCode();
    Double utilization = HttpMemberChecks.utilization(resp.headers());
    Handler<CheckOutcome> reported = o -> done.handle(o.withUtilization(utilization));
    resp.handler(DISCARD);
    resp.end()
        .onComplete(
            e -> {
              if (e.failed()) {
                reported.handle(CheckOutcome.brokenResponse(code, e.cause()));
              } else if (spec.passes(code)) {
                reported.handle(CheckOutcome.passed(code, true));
              } else {
                reported.handle(
                    CheckOutcome.failed(code, ProbeCause.HTTP_STATUS, "HTTP " + code, true));
              }
            });
  }
}
