package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.policy.Deadlines;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The single timer of one request: looks at its {@link Deadlines} when the earliest of them can
 * fall due and hands what is due to its owner. Re-armed lazily: activity that moves a deadline
 * later costs no timer churn; the early look finds nothing due and arms again. Event loop only.
 */
final class DeadlineTimer implements Runnable {
  /** What is due goes to it. */
  interface Owner {
    void due(Deadlines.Due due);
  }

  private final EventExecutor loop;
  private final LongSupplier clock;
  private final Deadlines deadlines;
  private final Owner owner;
  private ScheduledFuture<?> timer;
  private long at;
  private boolean stopped;

  DeadlineTimer(EventExecutor loop, LongSupplier clock, Deadlines deadlines, Owner owner) {
    this.loop = loop;
    this.clock = clock;
    this.deadlines = deadlines;
    this.owner = owner;
  }

  /** Makes sure a look is scheduled no later than the earliest deadline. */
  void arm() {
    long next = deadlines.nextCheck();
    if (stopped || next == Long.MAX_VALUE || (timer != null && at - next <= 0)) {
      return; // nothing can fall due, or an earlier look is scheduled and re-arms
    }
    if (timer != null) {
      timer.cancel(false);
    }
    at = next;
    long delay = Math.max(0, next - clock.getAsLong());
    timer = loop.schedule(this, delay, TimeUnit.NANOSECONDS); // itself: no object per request
  }

  /** The request ended: no more looks. */
  void stop() {
    stopped = true;
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  /** The look the timer scheduled. */
  @Override
  public void run() {
    timer = null;
    if (stopped) {
      return;
    }
    Deadlines.Due due = deadlines.due(clock.getAsLong());
    if (due != Deadlines.Due.NONE) {
      owner.due(due);
    }
    arm();
  }
}
