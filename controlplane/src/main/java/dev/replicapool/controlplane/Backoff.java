package dev.replicapool.controlplane;

import java.util.Random;

/**
 * Jittered exponential backoff: the n-th delay is {@code min(max, initial x 2^n)} scaled by a
 * random factor in {@code [1 - jitter, 1 + jitter]}. Not thread-safe.
 */
public final class Backoff {
  private final long initialMillis;
  private final long maxMillis;
  private final double jitter;
  private final Random random;
  private long nextBase;

  public Backoff(long initialMillis, long maxMillis, double jitter, Random random) {
    if (initialMillis <= 0 || maxMillis < initialMillis) {
      throw new IllegalArgumentException("need 0 < initial <= max");
    }
    if (jitter < 0 || jitter >= 1) {
      throw new IllegalArgumentException("jitter must be within [0, 1)");
    }
    this.initialMillis = initialMillis;
    this.maxMillis = maxMillis;
    this.jitter = jitter;
    this.random = random;
    this.nextBase = initialMillis;
  }

  /** The delay before the next attempt; each call doubles the base up to the maximum. */
  public long nextDelayMillis() {
    long base = nextBase;
    nextBase = Math.min(maxMillis, base * 2);
    double factor = 1 + jitter * (2 * random.nextDouble() - 1);
    return Math.max(1, Math.round(base * factor));
  }

  /** Back to the initial delay, after a connection that worked. */
  public void reset() {
    nextBase = initialMillis;
  }
}
