package dev.replicapool.dataplane.policy;

import dev.replicapool.api.v1alpha1.Hedging;

/**
 * When a pool's requests are hedged: after a fixed delay or after a percentile of the pool's recent
 * answer times. Which requests are, {@link Tries#hedgeable} decides from the pool's one list of
 * what its members may receive twice ({@link IdempotentRequests}).
 *
 * @param fixedDelayNanos the delay when fixed; 0 when a percentile sets it
 * @param percentile the percentile of {@link LatencyWindow} that sets the delay; 0 when fixed
 * @param fallbackNanos the delay while the window has seen too few answers
 * @param maxHedges hedges per request at most
 */
public record HedgePolicy(
    long fixedDelayNanos, double percentile, long fallbackNanos, int maxHedges) {
  static final int MIN_SAMPLES = 100;

  /** The pool's hedging, or null when it has none. */
  public static HedgePolicy from(Hedging h, double baselineMillis) {
    if (h == null || (h.delayMillis == null && h.delayPercentile == null)) {
      return null;
    }
    long fixed = h.delayMillis != null ? h.delayMillis * 1_000_000L : 0;
    double p = h.delayMillis != null ? 0 : h.delayPercentile;
    long fallback = (long) (2 * baselineMillis * 1_000_000L);
    int max = h.maxHedges == null ? 1 : Math.max(1, Math.min(3, h.maxHedges));
    return new HedgePolicy(fixed, p, Math.max(1_000_000L, fallback), max);
  }

  /** How long a try waits for its answer's head before a hedge follows it. */
  public long delayNanos(LatencyWindow window) {
    return fixedDelayNanos > 0
        ? fixedDelayNanos
        : window.percentile(percentile, MIN_SAMPLES, fallbackNanos);
  }
}
