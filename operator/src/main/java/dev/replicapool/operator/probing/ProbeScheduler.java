package dev.replicapool.operator.probing;

/**
 * When each member's probe is due and when a probe in flight has taken too long: the prober's
 * schedule, apart from what a probe does and whether it may start. Two implementations, chosen by
 * {@link Prober.Scheduling}: {@link WheelScheduler} (one periodic tick drives a hashed timing
 * wheel) and {@link TimerScheduler} (one event-loop timer per member and per probe). Time comes
 * from the injected {@link ProbeClock} and {@link LoopTimers}. Used on the prober's event loop
 * only.
 */
interface ProbeScheduler {

  /** A scheduled task; cancelling it more than once changes nothing. */
  interface Scheduled {
    void cancel();
  }

  /**
   * Runs {@code due} every {@code intervalMillis} until cancelled, the first time after {@code
   * firstDelayMillis} (the member's random phase, below the interval). After a pause that missed
   * rounds, the next run keeps the phase instead of catching up.
   */
  Scheduled every(long firstDelayMillis, long intervalMillis, Runnable due);

  /**
   * Runs {@code onTimeout} {@code timeoutMillis} after {@code startNanos} (a {@link
   * ProbeClock#nanoTime()} of the probe's start), never earlier, unless cancelled first.
   */
  Scheduled timeout(long startNanos, long timeoutMillis, Runnable onTimeout);

  /** Stops the scheduler's own timers; call it after cancelling everything scheduled. */
  void close();
}
