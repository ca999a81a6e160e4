package dev.replicapool.dataplane.routing;

import dev.replicapool.api.v1alpha1.SlowStart;

/**
 * Envoy's slow start for members that join a pool which already has routable members: during {@code
 * windowMillis} after the data plane first saw such a member admitted, its weight is multiplied by
 * {@code max(minWeightPercent / 100, (t / window)^(1 / aggression))}. Members of a pool's first
 * snapshot (a new pool, a restarted data plane) take their full share at once: there is nobody to
 * take the load off them.
 *
 * @param windowMillis 0: off
 */
public record SlowStartRamp(long windowMillis, double aggression, int minWeightPercent) {
  public static final double DEFAULT_AGGRESSION = 1.0;
  public static final int DEFAULT_MIN_WEIGHT_PERCENT = 10;

  public static final SlowStartRamp OFF = new SlowStartRamp(0, DEFAULT_AGGRESSION, 0);

  public SlowStartRamp {
    if (windowMillis < 0 || !(aggression > 0) || minWeightPercent < 0 || minWeightPercent > 100) {
      throw new IllegalArgumentException(
          "slow start needs window >= 0, aggression > 0 and minWeightPercent within 0..100");
    }
  }

  /**
   * The ramp of a snapshot's {@code slowStart}, with the CRD's defaults; null or no window: off.
   */
  public static SlowStartRamp from(SlowStart s) {
    if (s == null || s.windowMillis == null || s.windowMillis <= 0) {
      return OFF;
    }
    return new SlowStartRamp(
        s.windowMillis,
        s.aggression == null ? DEFAULT_AGGRESSION : s.aggression,
        s.minWeightPercent == null ? DEFAULT_MIN_WEIGHT_PERCENT : s.minWeightPercent);
  }

  public boolean enabled() {
    return windowMillis > 0;
  }

  /** The factor on a joining member's weight {@code elapsedMillis} after it was first admitted. */
  public double factor(long elapsedMillis) {
    if (!enabled() || elapsedMillis >= windowMillis) {
      return 1.0;
    }
    double share = Math.pow(Math.max(0, elapsedMillis) / (double) windowMillis, 1.0 / aggression);
    return Math.max(minWeightPercent / 100.0, share);
  }
}
