package dev.replicapool.dataplane.proxy;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The client connections of every traffic port: how many may be open, how long a request header may
 * take, and when a connection must process no more requests. Every connection Vert.x hands over,
 * and every request, passes here first ({@link #connected}, {@link #request}).
 *
 * <h2>Connection limit</h2>
 *
 * At most {@code maxConnections} client connections are open at once, all traffic ports together
 * (HAProxy's {@code maxconn}, Envoy's listener connection limit); one more is closed as soon as
 * Vert.x hands it over and counted in {@link #refused()}. Vert.x hands a TLS connection over after
 * its handshake, a plain one at accept when h2c is off, and with h2c on only once its first request
 * header is complete (it must see whether the request is an h2c upgrade): until then such a
 * connection is bounded by the idle timeout between bytes and by the header size limit, not by this
 * count.
 *
 * <h2>Request-header timeouts</h2>
 *
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
 * flow control; the idle timeout applies). With h2c on, the first request of a plain-text
 * connection is bounded by the idle timeout between bytes and by the header size limit only (see
 * above), and this guard bounds the requests after it. TLS connections are handed over after the
 * handshake (ALPN).
 *
 * <h2>Connection: close</h2>
 *
 * RFC 9112 9.6 for HTTP/1.x: once a response said {@code Connection: close}, no further request on
 * that connection is processed (see {@link #request}).
 *
 * <p>Each connection's guard is touched only on that connection's event loop; the map is shared by
 * the server instances of every port, hence concurrent.
 *
 * <p>The guard's timer is lazy: a request only clears the deadline and the end of its response sets
 * a new one, and a timer that fires before its connection's deadline sets itself again for the time
 * left. On a kept-alive connection that is one timer per keep-alive period rather than a timer set
 * and cancelled for every request.
 */
final class ClientConnections {
  private final Vertx vertx;
  private final long firstMillis;
  private final long keepAliveMillis;
  private final int maxConnections;
  private final Map<HttpConnection, Guard> guards = new ConcurrentHashMap<>();
  private final AtomicInteger open = new AtomicInteger();
  private final LongAdder refused = new LongAdder();

  /**
   * @param firstMillis request-header timeout of a new connection; 0 turns header timeouts off
   * @param keepAliveMillis request-header timeout after a response (the client idle timeout)
   * @param maxConnections client connections open at once; 0 means no limit
   */
  ClientConnections(Vertx vertx, long firstMillis, long keepAliveMillis, int maxConnections) {
    this.vertx = vertx;
    this.firstMillis = firstMillis;
    this.keepAliveMillis = keepAliveMillis;
    this.maxConnections = maxConnections;
  }

  boolean enabled() {
    return firstMillis > 0;
  }

  /** Client connections open now (handed over by Vert.x and not closed). */
  int open() {
    return open.get();
  }

  /** Connections closed because {@code maxConnections} were open, since start. */
  long refused() {
    return refused.sum();
  }

  /** A new client connection, on its event loop. */
  void connected(HttpConnection connection) {
    Guard g = guardFor(connection);
    // Vert.x may hand an HTTP/2 connection over after its first stream: then nothing to arm.
    if (g != null && enabled() && !g.seenRequest) {
      g.arm(firstMillis);
    }
  }

  /**
   * The connection's guard; the first call for a connection admits it, or closes it and returns
   * null when {@code maxConnections} are open.
   */
  private Guard guardFor(HttpConnection connection) {
    Guard g = guards.get(connection);
    if (g == null) {
      if (open.incrementAndGet() > maxConnections && maxConnections > 0) {
        open.decrementAndGet();
        refused.increment();
        connection.close();
        return null;
      }
      Guard created = new Guard(connection);
      guards.put(connection, created);
      connection.closeHandler(
          v -> {
            created.cancel();
            created.stopTimer();
            if (guards.remove(connection) != null) {
              open.decrementAndGet();
            }
          });
      g = created;
    }
    return g;
  }

  /**
   * A request whose header is complete, on its connection's event loop; false when it must not be
   * processed. With {@code closeAfter} the connection is closed once the response ended (a chunked
   * HTTP/1.x request, see {@link RequestChecks#mustClose}); this class owns the response's end
   * handler for both purposes.
   *
   * <p>An HTTP/1.x request behind one whose response said {@code Connection: close} (a refusal, an
   * aborted body, a chunked request) is refused, and the connection closed at once: RFC 9112 9.6,
   * "MUST NOT process any further requests received on that connection". Vert.x dispatches a
   * pipelined request as soon as the response before it ended, before that connection's close takes
   * effect, so without this a request hidden after an ambiguous one (CL and TE) would reach a
   * member. Whoever answered with close is covered, as the check reads the response that went out.
   */
  boolean request(HttpServerRequest req, boolean closeAfter) {
    boolean http1 = req.version() != HttpVersion.HTTP_2;
    Guard g = guardFor(req.connection());
    if (g == null) {
      return false; // refused: too many connections
    }
    if (http1) {
      HttpServerResponse previous = g.previous;
      if (previous != null && saidClose(previous)) {
        g.cancel();
        g.stopTimer();
        g.disabled = true;
        req.connection().close();
        return false;
      }
      g.previous = req.response();
    }
    if (enabled()) {
      g.seenRequest = true;
      g.cancel();
      if (!http1) {
        g.disabled = true; // HTTP/2 streams: flow control and the idle timeout apply
      }
    }
    if (g.disabled || !enabled()) {
      g = null;
    } else {
      g.inFlight++;
    }
    if (g == null && !closeAfter) {
      return true;
    }
    Guard guard = g;
    req.response()
        .endHandler(
            v -> {
              if (closeAfter) {
                if (guard != null) {
                  guard.cancel();
                  guard.stopTimer();
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
    return true;
  }

  private static boolean saidClose(HttpServerResponse response) {
    return response.headers().contains(HttpHeaders.CONNECTION, HttpHeaders.CLOSE, true);
  }

  private final class Guard {
    final HttpConnection connection;
    int inFlight;
    boolean seenRequest;

    /** The response to the connection's last HTTP/1.x request (one at a time, even pipelined). */
    HttpServerResponse previous;

    boolean disabled;

    /** System.nanoTime() by which a request header must be complete; meaningful while armed. */
    long deadline;

    boolean armed;

    /** The pending timer, -1 when none; it may fire before the deadline, never after it. */
    long timer = -1;

    long timerDue;

    Guard(HttpConnection connection) {
      this.connection = connection;
    }

    void arm(long millis) {
      if (disabled) {
        return;
      }
      long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
      deadline = due;
      armed = true;
      if (timer != -1 && due - timerDue < 0) {
        stopTimer(); // the pending timer would fire too late for this deadline
      }
      if (timer == -1) {
        startTimer(millis, due);
      }
    }

    /** No deadline until the next {@link #arm}; a pending timer stays and finds nothing to do. */
    void cancel() {
      armed = false;
    }

    private void startTimer(long millis, long due) {
      timerDue = due;
      timer = vertx.setTimer(Math.max(1, millis), id -> fired());
    }

    private void fired() {
      timer = -1;
      if (!armed || disabled) {
        return;
      }
      long left = deadline - System.nanoTime();
      if (left > 0) {
        startTimer(TimeUnit.NANOSECONDS.toMillis(left) + 1, deadline);
      } else if (inFlight == 0) {
        disabled = true;
        connection.close();
      }
    }

    /** Cancels the pending timer for good (the connection closed). */
    void stopTimer() {
      if (timer != -1) {
        vertx.cancelTimer(timer);
        timer = -1;
      }
    }
  }
}
