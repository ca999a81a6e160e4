package dev.replicapool.operator.health;

import java.util.Arrays;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * One member's latency samples: the p95 of the last {@code size}, and a score that weighs each new
 * sample by {@code alpha} (an exponentially weighted average from the first sample on). Plain data.
 */
final class LatencyWindow {
  private final long[] samples;
  private final double alpha;
  private int count;
  private int next;
  private OptionalDouble score = OptionalDouble.empty();

  LatencyWindow(int size, double alpha) {
    this.samples = new long[size];
    this.alpha = alpha;
  }

  /** Adds a sample; a negative one counts as 0. */
  void record(long latencyMillis) {
    long sample = Math.max(0, latencyMillis);
    samples[next] = sample;
    next = (next + 1) % samples.length;
    count = Math.min(count + 1, samples.length);
    score =
        OptionalDouble.of(
            score.isEmpty()
                ? sample
                : score.getAsDouble() + alpha * (sample - score.getAsDouble()));
  }

  /** The p95 of the window (nearest rank); empty before the first sample. */
  OptionalLong p95() {
    if (count == 0) {
      return OptionalLong.empty();
    }
    long[] copy = Arrays.copyOf(samples, count);
    Arrays.sort(copy);
    int rank = (int) Math.ceil(0.95 * count) - 1;
    return OptionalLong.of(copy[Math.max(0, rank)]);
  }

  /** The weighted score; empty before the first sample. */
  OptionalDouble score() {
    return score;
  }
}
