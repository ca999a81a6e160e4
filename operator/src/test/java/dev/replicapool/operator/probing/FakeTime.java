package dev.replicapool.operator.probing;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The prober's clock and event-loop timers, moved by the test: time stands still between calls to
 * {@link #advance}, which runs the timers due on the way at their due times, in order. One thread
 * at a time (the test's, or the prober's event loop).
 */
final class FakeTime implements ProbeClock, LoopTimers {
  private static final Instant ORIGIN = Instant.parse("2026-01-01T00:00:00Z");

  private long nanos;
  private long nextId;
  private final Map<Long, Timer> timers = new LinkedHashMap<>();

  private static final class Timer {
    final long id;
    final long periodNanos; // 0: runs once
    final Runnable task;
    long dueNanos;

    Timer(long id, long dueNanos, long periodNanos, Runnable task) {
      this.id = id;
      this.dueNanos = dueNanos;
      this.periodNanos = periodNanos;
      this.task = task;
    }
  }

  @Override
  public long nanoTime() {
    return nanos;
  }

  @Override
  public Instant instant() {
    return ORIGIN.plusNanos(nanos);
  }

  long nowMillis() {
    return nanos / 1_000_000;
  }

  @Override
  public long setTimer(long delayMillis, Runnable task) {
    return add(delayMillis, 0, task);
  }

  @Override
  public long setPeriodic(long initialDelayMillis, long periodMillis, Runnable task) {
    return add(initialDelayMillis, periodMillis * 1_000_000, task);
  }

  private long add(long delayMillis, long periodNanos, Runnable task) {
    if (delayMillis < 1) {
      throw new IllegalArgumentException("a timer needs a delay of at least 1 ms, as in Vert.x");
    }
    long id = nextId++;
    timers.put(id, new Timer(id, nanos + delayMillis * 1_000_000, periodNanos, task));
    return id;
  }

  @Override
  public void cancel(long id) {
    timers.remove(id);
  }

  /** Timers set and not yet run or cancelled (periodic ones until cancelled). */
  int pendingTimers() {
    return timers.size();
  }

  void advance(long millis) {
    advanceNanos(millis * 1_000_000);
  }

  /** Moves time on, running each timer that comes due on the way at its due time. */
  void advanceNanos(long delta) {
    long end = nanos + delta;
    for (Timer t = nextDue(end); t != null; t = nextDue(end)) {
      nanos = Math.max(nanos, t.dueNanos);
      if (t.periodNanos == 0) {
        timers.remove(t.id);
      } else {
        // An overdue periodic timer (after a pause) runs once, then keeps its period.
        do {
          t.dueNanos += t.periodNanos;
        } while (t.dueNanos <= nanos);
      }
      t.task.run();
    }
    nanos = end;
  }

  /** A pause of the event loop: time moves on, no timer runs until the next {@link #advance}. */
  void pause(long millis) {
    nanos += millis * 1_000_000;
  }

  private Timer nextDue(long end) {
    Timer next = null;
    for (Timer t : timers.values()) {
      if (t.dueNanos <= end && (next == null || t.dueNanos < next.dueNanos)) {
        next = t;
      }
    }
    return next;
  }
}
