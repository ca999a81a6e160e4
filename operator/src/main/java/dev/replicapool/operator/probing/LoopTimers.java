package dev.replicapool.operator.probing;

import io.vertx.core.Vertx;

/**
 * The timers a {@link ProbeScheduler} sets on the prober's event loop: Vert.x's in production, a
 * test's own on a clock it moves. Called on that event loop only.
 */
interface LoopTimers {
  /** Runs {@code task} once, {@code delayMillis} (at least 1) from now; returns its id. */
  long setTimer(long delayMillis, Runnable task);

  /**
   * Runs {@code task} every {@code periodMillis}, the first time after {@code initialDelayMillis}.
   */
  long setPeriodic(long initialDelayMillis, long periodMillis, Runnable task);

  void cancel(long id);

  /** Vert.x timers, on the event loop of the context that sets them. */
  static LoopTimers of(Vertx vertx) {
    return new LoopTimers() {
      @Override
      public long setTimer(long delayMillis, Runnable task) {
        return vertx.setTimer(delayMillis, id -> task.run());
      }

      @Override
      public long setPeriodic(long initialDelayMillis, long periodMillis, Runnable task) {
        return vertx.setPeriodic(initialDelayMillis, periodMillis, id -> task.run());
      }

      @Override
      public void cancel(long id) {
        vertx.cancelTimer(id);
      }
    };
  }
}
