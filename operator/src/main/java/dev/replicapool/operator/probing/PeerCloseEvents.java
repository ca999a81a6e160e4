package dev.replicapool.operator.probing;

import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpVersion;
import java.util.Locale;

/**
 * One member's kept-alive probe connection as its checker reports it, passed on to the {@link
 * PeerCloseWatch}: which connection, its close, and what announces that close (a {@code Connection:
 * close} answer, a GOAWAY, the checker's own reset). The Vert.x side of the watch.
 */
final class PeerCloseEvents implements HealthChecker.ConnectionEvents {
  private final PeerCloseWatch watch;
  private final PeerCloseWatch.Member member;
  private final Runnable onUnexpectedClose;

  PeerCloseEvents(PeerCloseWatch watch, PeerCloseWatch.Member member, Runnable onUnexpectedClose) {
    this.watch = watch;
    this.member = member;
    this.onUnexpectedClose = onUnexpectedClose;
  }

  @Override
  public void sending(HttpClientRequest request) {
    HttpConnection c = request.connection();
    if (c != null && watch.watch(member, c, onUnexpectedClose)) {
      // The only close handler of a probe connection: ProbeClients sets none.
      c.closeHandler(v -> watch.closed(c));
      if (request.version() == HttpVersion.HTTP_2) {
        c.goAwayHandler(g -> watch.expectClose(c)); // HTTP/1.x connections refuse one
      }
    }
  }

  @Override
  public void answered(HttpClientResponse response) {
    watch.answered(member, response.request().connection(), announcesClose(response));
  }

  @Override
  public void resetting(HttpClientRequest request) {
    // An HTTP/2 reset ends one stream; an HTTP/1.x reset closes the connection.
    if (request.version() != HttpVersion.HTTP_2 && request.connection() != null) {
      watch.expectClose(request.connection());
    }
  }

  /**
   * {@code Connection: close}. An HTTP/1.0 answer without keep-alive announces its close as well,
   * but Vert.x 5's client does not say which version answered ({@code version()} is the request's),
   * so such members are believed to close by design after their first false alarms.
   */
  static boolean announcesClose(HttpClientResponse response) {
    String c = response.getHeader("Connection");
    return c != null && c.toLowerCase(Locale.ROOT).contains("close");
  }
}
