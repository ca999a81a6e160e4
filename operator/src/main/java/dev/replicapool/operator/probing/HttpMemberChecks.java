package dev.replicapool.operator.probing;

import dev.replicapool.controlplane.load.LoadReport;
import dev.replicapool.controlplane.load.LoadReports;
import dev.replicapool.operator.probing.HealthChecker.MemberCheck;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.net.SocketAddress;
import java.util.function.Function;

/**
 * What the HTTP and gRPC checkers share: a request to the member on the pooled client of the spec's
 * transport (TLS and server name as the spec says, the spec's authority), run as an {@link
 * HttpCheckRun}, with a failure to get an answer reported as no response. Each checker says what it
 * sends and how it judges the answer.
 */
final class HttpMemberChecks {
  /**
   * Reads an answer (its headers told to the prober already) and hands {@code done} the outcome.
   */
  interface AnswerReader {
    void read(HttpClientResponse response, Handler<CheckOutcome> done);
  }

  private final ProbeClients clients;
  private final String userAgent;

  HttpMemberChecks(ProbeClients clients, String userAgent) {
    this.clients = clients;
    this.userAgent = userAgent;
  }

  /**
   * The utilization an answer reports in its first header map (of {@code maps}) that holds an ORCA
   * load report, {@code endpoint-load-metrics-bin} before {@code endpoint-load-metrics}; null when
   * none holds a readable one. As the data plane reads it: {@link LoadReport#utilization}.
   */
  static Double utilization(MultiMap... maps) {
    for (MultiMap m : maps) {
      String bin = m.get(LoadReports.HEADER_BIN);
      LoadReport r = bin == null ? null : LoadReports.bin(bin);
      if (r == null) {
        String text = m.get(LoadReports.HEADER);
        r = text == null ? null : LoadReports.parse(text);
      }
      if (r != null) {
        return r.utilization();
      }
    }
    return null;
  }

  /** The User-Agent the checks send. */
  String userAgent() {
    return userAgent;
  }

  /**
   * Where a request goes: the member's address, with TLS when the spec says so. With a server name,
   * that name is the request's host (SNI, the name verified, the default Host) while the connection
   * still goes to the member.
   */
  RequestOptions target(String host, int port, ProbeSpec spec) {
    RequestOptions o = new RequestOptions().setPort(port);
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

  /**
   * The check of one member: each start opens a request with {@code options} (made by {@link
   * #target}), hands it to {@code send}, and gives the answer to {@code reader}.
   */
  MemberCheck prepare(
      ProbeSpec spec,
      RequestOptions options,
      Function<HttpClientRequest, Future<HttpClientResponse>> send,
      AnswerReader reader) {
    HttpClient client = clients.client(spec.transport());
    HostAndPort authority = authority(spec);
    return (events, done) ->
        HttpCheckRun.start(
            client,
            options,
            authority,
            events,
            done,
            req ->
                send.apply(req)
                    .onComplete(
                        r -> {
                          if (r.failed()) {
                            done.handle(CheckOutcome.noResponse(r.cause()));
                            return;
                          }
                          events.answered(r.result());
                          reader.read(r.result(), done);
                        }));
  }

  /** The Host or :authority the spec asks for, as written (no port added), null for the default. */
  private static HostAndPort authority(ProbeSpec spec) {
    if (spec.authority() == null || spec.authority().isBlank()) {
      return null;
    }
    return HostAndPort.parseAuthority(spec.authority(), -1);
  }
}
