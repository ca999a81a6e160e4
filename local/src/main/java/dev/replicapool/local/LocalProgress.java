package dev.replicapool.local;

/**
 * The numbered steps of one local run on the terminal: {@code [n/7] what ...} when a step begins,
 * its seconds when it is done. {@link LocalRunMain} and {@link LocalCluster} report through it; a
 * failure names the step it happened in.
 */
final class LocalProgress {
  private int step;
  private long stepStarted;

  /** Starts the next step. */
  void begin(String what) {
    step++;
    System.out.printf("[%d/7] %-70s", step, what + " ...");
    System.out.flush();
    stepStarted = System.nanoTime();
  }

  /** Ends the current step with the seconds it took. */
  void done() {
    System.out.printf(" %5.1f s%n", (System.nanoTime() - stepStarted) / 1e9);
  }

  /** The number of the step begun last. */
  int step() {
    return step;
  }
}
