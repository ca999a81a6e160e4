package dev.replicapool.operator.probing;

/**
 * What the prober did since it started, for {@link Prober#stats()}. Counted on the prober's event
 * loop only; volatile for readers on other threads.
 */
final class ProbeCounters {
  private volatile long started;
  private volatile long succeeded;
  private volatile long failed;
  private volatile long timedOut;
  private volatile long skipped;
  private volatile long shed;

  void started() {
    started++;
  }

  void succeeded() {
    succeeded++;
  }

  void failed() {
    failed++;
  }

  void timedOut() {
    timedOut++;
  }

  /** A probe came due while the member's previous one still ran. */
  void skipped() {
    skipped++;
  }

  /** A probe came due beyond a {@link ProbeLimits limit}, or while shutting down. */
  void shed() {
    shed++;
  }

  Prober.Stats stats(int tracked, int inFlight) {
    return new Prober.Stats(tracked, inFlight, started, succeeded, failed, timedOut, skipped, shed);
  }
}
