package dev.replicapool.operator.probing;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.net.SocketAddress;

/**
 * HTTP GET of the spec's path; passes on an expected status whose body has arrived. Speaks
 * HTTP/1.1, HTTP/2 with prior knowledge, or either over TLS (by ALPN), as the pool's members do;
 * the connection is kept alive between probes.
 */
final class HttpHealthChecker implements HealthChecker {
  private static final Handler<Buffer> DISCARD = b -> {};

  private final ProbeClients clients;
  private final String userAgent;

  HttpHealthChecker(ProbeClients clients, String userAgent) {
    this.clients = clients;
    this.userAgent = userAgent;
  }

  @Override
  public MemberCheck prepare(String host, int port, ProbeSpec spec, long timeoutMillis) {
    HttpClient client = clients.client(spec.transport());
    RequestOptions options =
        target(clients, new RequestOptions(), host, port, spec)
            .setMethod(HttpMethod.GET)
            .setURI(spec.path())
            .setFollowRedirects(false)
            .putHeader("User-Agent", userAgent);
    HostAndPort authority = authority(spec);
    return (events, done) ->
        HttpCheckRun.start(
            client,
            options,
            authority,
            events,
            done,
            req ->
                req.send()
                    .onComplete(
                        r -> onResponse(r.failed() ? null : r.result(), r, spec, events, done)));
  }

  private static void onResponse(
      HttpClientResponse resp,
      io.vertx.core.AsyncResult<HttpClientResponse> r,
      ProbeSpec spec,
      ConnectionEvents events,
      Handler<CheckOutcome> done) {
    if (resp == null) {
      done.handle(CheckOutcome.noResponse(r.cause()));
      return;
    }
    events.answered(resp);
    int code = resp.statusCode();
    resp.handler(DISCARD);
    resp.end()
        .onComplete(
            e -> {
              if (e.failed()) {
                done.handle(CheckOutcome.failed(code, CheckOutcome.describe(e.cause()), true));
              } else if (spec.passes(code)) {
                done.handle(CheckOutcome.passed(code, true));
              } else {
                done.handle(CheckOutcome.failed(code, "HTTP " + code, true));
              }
            });
  }

  /**
   * Where a request goes: the member's address, with TLS when the spec says so. With a server name,
   * that name is the request's host (SNI, the name verified, the default Host) while the connection
   * still goes to the member.
   */
  static RequestOptions target(
      ProbeClients clients, RequestOptions o, String host, int port, ProbeSpec spec) {
    o.setPort(port);
    String serverName = spec.tls() == null ? null : spec.tls().serverName();
    if (spec.transport().tls()) {
      o.setSsl(true).setSslOptions(clients.sslOptions(spec.tls(), spec.transport()));
    }
    if (serverName != null && !serverName.isBlank()) {
      o.setHost(serverName).setServer(SocketAddress.inetSocketAddress(port, host));
    } else {
      o.setHost(host);
    }
    return o;
  }

  /** The Host or :authority the spec asks for, as written (no port added), null for the default. */
  static HostAndPort authority(ProbeSpec spec) {
    if (spec.authority() == null || spec.authority().isBlank()) {
      return null;
    }
    return HostAndPort.parseAuthority(spec.authority(), -1);
  }
}
