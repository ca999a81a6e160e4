package dev.replicapool.dataplane.routing;

/**
 * Peak-sensitive exponentially weighted moving average of a member's latency (the Finagle/Linkerd
 * "peak EWMA"): a sample above the current value replaces it at once, a lower one is blended in
 * with a weight that grows with the time since the last sample (decay constant tau). Read between
 * samples, the value decays towards zero, so a member that has been avoided for a while is tried
 * again. Thread-safe.
 */
public final class PeakEwma {
  private final double tauNanos;
  private double valueMillis;
  private long stampNanos;

  public PeakEwma(long tauMillis, double initialMillis, long nowNanos) {
    if (tauMillis <= 0) {
      throw new IllegalArgumentException("tau must be positive");
    }
    this.tauNanos = tauMillis * 1_000_000.0;
    this.valueMillis = initialMillis;
    this.stampNanos = nowNanos;
  }

  /** Adds a sample observed at {@code nowNanos}. */
  public synchronized void observe(double sampleMillis, long nowNanos) {
    if (sampleMillis > valueMillis) {
      valueMillis = sampleMillis;
    } else {
      double elapsed = Math.max(0, nowNanos - stampNanos);
      double w = Math.exp(-elapsed / tauNanos);
      valueMillis = valueMillis * w + sampleMillis * (1 - w);
    }
    stampNanos = Math.max(stampNanos, nowNanos);
  }

  /** The current estimate, decayed to {@code nowNanos}. */
  public synchronized double value(long nowNanos) {
    return decayed(nowNanos);
  }

  private double decayed(long nowNanos) {
    double elapsed = Math.max(0, nowNanos - stampNanos);
    return valueMillis * Math.exp(-elapsed / tauNanos);
  }
}
