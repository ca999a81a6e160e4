package dev.replicapool.dataplane.forward;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * At most one log line per interval for something any client can cause as often as it likes, so
 * that it cannot flood the log: the line says how many went unlogged since the last one. Shared by
 * every event loop (lock-free).
 */
final class LogLimit {
  private final LongSupplier clock;
  private final long intervalNanos;
  private final AtomicLong next;
  private final AtomicLong suppressed = new AtomicLong();

  LogLimit(LongSupplier clock, long intervalNanos) {
    this.clock = clock;
    this.intervalNanos = intervalNanos;
    this.next = new AtomicLong(clock.getAsLong());
  }

  /**
   * Whether this occurrence may be logged now; if so, returns how many were not logged since the
   * last one, else -1.
   */
  long tryLog() {
    long now = clock.getAsLong();
    long due = next.get();
    if (now - due >= 0 && next.compareAndSet(due, now + intervalNanos)) {
      return suppressed.getAndSet(0);
    }
    suppressed.incrementAndGet();
    return -1;
  }
}
