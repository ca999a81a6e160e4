package dev.replicapool.controlplane;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A deadline for the head of a connection's first request (the WebSocket handshake a data plane
 * sends at once): a client that trickles its headers a byte at a time (slowloris) resets the read
 * idle timeout with every byte, so only a deadline from the connection's start bounds it, as the
 * traffic port's header timeout does. Needs HTTP/1.x connections (h2c off): with h2c detection on,
 * Vert.x hands the connection handler a connection that closes at once.
 */
final class HeadDeadline {
  private static final Logger log = LoggerFactory.getLogger(HeadDeadline.class);

  /** Far above a handshake's round trip, even over TLS on a loaded node. */
  static final long MILLIS = 5_000;

  /** At most one log line per this long, however many connections are closed. */
  private static final long LOG_EVERY_MILLIS = 60_000;

  private final Vertx vertx;
  private final long millis;

  /** The connections whose first head has not come yet, by remote address, to their timers. */
  private final Map<SocketAddress, Long> waiting = new ConcurrentHashMap<>();

  private final AtomicLong lastLogMillis = new AtomicLong(Long.MIN_VALUE / 2);
  private final AtomicInteger closedSinceLog = new AtomicInteger();

  HeadDeadline(Vertx vertx, long millis) {
    this.vertx = vertx;
    this.millis = millis;
  }

  /** A connection opened: closed unless its first request head arrives within the deadline. */
  void opened(HttpConnection c) {
    SocketAddress from = c.remoteAddress();
    long timer =
        vertx.setTimer(
            millis,
            id -> {
              if (waiting.remove(from, id)) {
                c.close();
                closed(from);
              }
            });
    waiting.put(from, timer);
    c.closeHandler(v -> headArrived(from));
  }

  /** The head of a request from {@code from} is complete (or its connection closed). */
  void headArrived(SocketAddress from) {
    Long timer = waiting.remove(from);
    if (timer != null) {
      vertx.cancelTimer(timer);
    }
  }

  private void closed(SocketAddress from) {
    int n = closedSinceLog.incrementAndGet();
    long now = System.currentTimeMillis();
    long last = lastLogMillis.get();
    if (now - last >= LOG_EVERY_MILLIS && lastLogMillis.compareAndSet(last, now)) {
      closedSinceLog.addAndGet(-n);
      log.info(
          "closed {} control-plane connection(s) without a request head within {} ms (the last"
              + " from {}); at most one such line a minute",
          n,
          millis,
          from);
    }
  }
}
