package dev.replicapool.operator.probing;

/**
 * {@link Prober.Scheduling#WHEEL}: one periodic event-loop timer advances a {@link TimingWheel} of
 * due probes and timeouts every tick, so 10,000 members cost one timer, not 10,000 (measured
 * cheaper, docs/BENCH-PROBING.md). Probes start and time out up to one tick late, never early.
 */
final class WheelScheduler implements ProbeScheduler {
  static final int SLOTS = 4096;

  private final ProbeClock clock;
  private final LoopTimers timers;
  private final long originNanos;
  private final TimingWheel wheel;
  private final long tickTimerId;

  /** Sets the tick's timer: construct it on the event loop the wheel belongs to. */
  WheelScheduler(long tickMillis, ProbeClock clock, LoopTimers timers) {
    this.clock = clock;
    this.timers = timers;
    this.originNanos = clock.nanoTime();
    this.wheel = new TimingWheel(tickMillis, SLOTS, nowMillis());
    this.tickTimerId = timers.setPeriodic(tickMillis, tickMillis, () -> wheel.advance(nowMillis()));
  }

  private long nowMillis() {
    return (clock.nanoTime() - originNanos) / 1_000_000;
  }

  @Override
  public Scheduled every(long firstDelayMillis, long intervalMillis, Runnable due) {
    Periodic p = new Periodic(intervalMillis, due, nowMillis() + firstDelayMillis);
    p.next = wheel.schedule(p, p.dueMillis);
    return p;
  }

  @Override
  public Scheduled timeout(long startNanos, long timeoutMillis, Runnable onTimeout) {
    // Round the start up, or the timeout could fire a fraction of a millisecond early.
    long startMillis = -Math.floorDiv(-(startNanos - originNanos), 1_000_000L);
    TimingWheel.Timeout t = wheel.schedule(onTimeout, startMillis + timeoutMillis);
    return t::cancel;
  }

  @Override
  public void close() {
    timers.cancel(tickTimerId);
  }

  /** One member's round: runs, then puts itself back one interval later on the same phase. */
  private final class Periodic implements Runnable, Scheduled {
    final long intervalMillis;
    final Runnable due;
    long dueMillis;
    TimingWheel.Timeout next;
    boolean cancelled;

    Periodic(long intervalMillis, Runnable due, long firstDueMillis) {
      this.intervalMillis = intervalMillis;
      this.due = due;
      this.dueMillis = firstDueMillis;
    }

    @Override
    public void run() {
      if (cancelled) {
        return;
      }
      due.run();
      long now = nowMillis();
      dueMillis += intervalMillis;
      if (dueMillis <= now) {
        // Fell behind (a long pause): keep the phase, skip the missed rounds.
        dueMillis += ((now - dueMillis) / intervalMillis + 1) * intervalMillis;
      }
      next = wheel.schedule(this, dueMillis);
    }

    @Override
    public void cancel() {
      cancelled = true;
      next.cancel();
    }
  }
}
