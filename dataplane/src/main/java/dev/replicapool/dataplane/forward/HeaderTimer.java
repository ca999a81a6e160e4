package dev.replicapool.dataplane.forward;

import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.TimeUnit;

/**
 * How long a client connection may take for a complete request head (slowloris), from its accept
 * and after each response: absolute, so trickling bytes does not extend it. One lazy timer per
 * connection that re-arms itself for the time left, and tells its {@link Http1Connection} when the
 * time is up. Event loop only.
 */
final class HeaderTimer {
  /** The connection it bounds. */
  interface Owner {
    /** Whether the connection closes anyway: nothing to bound. */
    boolean closing();

    /** No complete request head came in time. */
    void headerTimedOut();
  }

  private final ChannelHandlerContext ctx;
  private final Owner connection;
  private long deadline;
  private boolean pending;

  HeaderTimer(ChannelHandlerContext ctx, Owner connection) {
    this.ctx = ctx;
    this.connection = connection;
  }

  /** From now, a complete request head must arrive within {@code millis}; 0 for no bound. */
  void arm(long millis) {
    if (millis <= 0) {
      return;
    }
    deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    if (!pending) {
      pending = true;
      ctx.executor().schedule(this::fired, millis, TimeUnit.MILLISECONDS);
    }
  }

  /** A head came (or the connection closes): no bound until the next {@link #arm}. */
  void cancel() {
    deadline = 0;
  }

  private void fired() {
    pending = false;
    if (deadline == 0 || connection.closing() || !ctx.channel().isActive()) {
      return;
    }
    long left = deadline - System.nanoTime();
    if (left > 0) {
      pending = true;
      ctx.executor().schedule(this::fired, left, TimeUnit.NANOSECONDS);
      return;
    }
    connection.headerTimedOut();
  }
}
