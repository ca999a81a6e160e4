package dev.replicapool.operator.probing;

import java.time.Instant;

/**
 * The prober's time: a monotonic clock for schedules and latencies, a wall clock for the time a
 * result was known. Injected, so that schedules can be tested on a clock the test moves.
 */
interface ProbeClock {
  ProbeClock SYSTEM =
      new ProbeClock() {
        @Override
        public long nanoTime() {
          return System.nanoTime();
        }

        @Override
        public Instant instant() {
          return Instant.now();
        }
      };

  /** Monotonic nanoseconds, any origin, as {@link System#nanoTime()}. */
  long nanoTime();

  /** Wall-clock time, for {@link ProbeResult#at()}. */
  Instant instant();
}
