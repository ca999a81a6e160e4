package dev.replicapool.dataplane.proxy;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Closes HTTP/1.x client connections that take too long to send a complete request header: a
 * slowloris client trickles header bytes to stay under the idle timeout, which every byte resets.
 * These limits are absolute, as HAProxy's {@code timeout http-request}:
 *
 * <ul>
 *   <li>from the moment Vert.x hands the connection over, the first request header must be complete
 *       within {@code firstMillis};
 *   <li>after a response ended with no other request in flight, the next request header must be
 *       complete within {@code keepAliveMillis} (the client idle timeout: a kept-alive connection
 *       may idle that long, as before, but no longer by trickling).
 * </ul>
 *
 * <p>An HTTP/2 connection is left alone once its first request arrived (its streams have their own
 * flow control; the idle timeout applies). Vert.x hands a plain-text connection over at accept only
 * when h2c is off: with h2c on, it first waits for the first request header to be complete (to see
 * whether it is an h2c upgrade), so there the first request of a connection is bounded by the idle
 * timeout between bytes and by the header size limit only, and this guard bounds the requests after
 * it. TLS connections are handed over after the handshake (ALPN).
 *
 * <p>Each connection's guard is touched only on that connection's event loop; the map is shared by
 * the server instances of a port, hence concurrent.
 */
final class RequestHeaderTimeouts {
  private final Vertx vertx;
  private final long firstMillis;
  private final long keepAliveMillis;
  private final Map<HttpConnection, Guard> guards = new ConcurrentHashMap<>();

  RequestHeaderTimeouts(Vertx vertx, long firstMillis, long keepAliveMillis) {
    this.vertx = vertx;
    this.firstMillis = firstMillis;
    this.keepAliveMillis = keepAliveMillis;
  }

  boolean enabled() {
    return firstMillis > 0;
  }

  /** A new client connection, on its event loop. */
  void connected(HttpConnection connection) {
    if (!enabled()) {
      return;
    }
    Guard g = guardFor(connection);
    // Vert.x may hand an HTTP/2 connection over after its first stream: then nothing to arm.
    if (!g.seenRequest) {
      g.arm(firstMillis);
    }
  }

  private Guard guardFor(HttpConnection connection) {
    Guard g = guards.get(connection);
    if (g == null) {
      Guard created = new Guard(connection);
      guards.put(connection, created);
      connection.closeHandler(
          v -> {
            created.cancel();
            guards.remove(connection);
          });
      g = created;
    }
    return g;
  }

  /**
   * A request whose header is complete, on its connection's event loop. With {@code closeAfter} the
   * connection is closed once the response ended (a chunked HTTP/1.x request, see {@link
   * RequestChecks#mustClose}); this class owns the response's end handler for both purposes.
   */
  void request(HttpServerRequest req, boolean closeAfter) {
    Guard g = enabled() ? guardFor(req.connection()) : null;
    if (g != null) {
      g.seenRequest = true;
      g.cancel();
      if (req.version() == HttpVersion.HTTP_2) {
        g.disabled = true; // HTTP/2 streams: flow control and the idle timeout apply
      }
      if (g.disabled) {
        g = null;
      } else {
        g.inFlight++;
      }
    }
    if (g == null && !closeAfter) {
      return;
    }
    Guard guard = g;
    req.response()
        .endHandler(
            v -> {
              if (closeAfter) {
                if (guard != null) {
                  guard.cancel();
                  guard.disabled = true;
                }
                req.connection().close();
                return;
              }
              guard.inFlight--;
              if (guard.inFlight == 0 && guards.containsKey(guard.connection)) {
                guard.arm(keepAliveMillis > 0 ? keepAliveMillis : firstMillis);
              }
            });
  }

  /** Connections being watched now (for tests and metrics). */
  int watched() {
    return guards.size();
  }

  private final class Guard {
    final HttpConnection connection;
    int inFlight;
    boolean seenRequest;
    boolean disabled;
    long timer = -1;

    Guard(HttpConnection connection) {
      this.connection = connection;
    }

    void arm(long millis) {
      cancel();
      if (disabled) {
        return;
      }
      timer =
          vertx.setTimer(
              millis,
              id -> {
                timer = -1;
                if (inFlight == 0 && !disabled) {
                  disabled = true;
                  connection.close();
                }
              });
    }

    void cancel() {
      if (timer != -1) {
        vertx.cancelTimer(timer);
        timer = -1;
      }
    }
  }
}
