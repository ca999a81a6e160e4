package dev.replicapool.operator.probing;

/**
 * {@link Prober.Scheduling#TIMERS}: one periodic event-loop timer per member and one timer per
 * probe's timeout, so each runs at the event loop's own resolution; costlier than the wheel with
 * many members (docs/BENCH-PROBING.md).
 */
final class TimerScheduler implements ProbeScheduler {
  private final LoopTimers timers;

  TimerScheduler(LoopTimers timers) {
    this.timers = timers;
  }

  @Override
  public Scheduled every(long firstDelayMillis, long intervalMillis, Runnable due) {
    // A timer needs a delay of at least 1 ms; a phase of 0 is the next millisecond.
    long id = timers.setPeriodic(Math.max(1, firstDelayMillis), intervalMillis, due);
    return () -> timers.cancel(id);
  }

  @Override
  public Scheduled timeout(long startNanos, long timeoutMillis, Runnable onTimeout) {
    // Set as the probe starts, so from now is from its start.
    long id = timers.setTimer(timeoutMillis, onTimeout);
    return () -> timers.cancel(id);
  }

  @Override
  public void close() {
    // Every timer belongs to a member or a probe, cancelled with them.
  }
}
