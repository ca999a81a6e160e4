package dev.replicapool.operator.health;

import dev.replicapool.api.v1alpha1.MemberState;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * A member's weight: its traffic share relative to a healthy member, 0..1, two decimals. Unhealthy,
 * Draining and Pending: 0. Otherwise {@code max(minWeight, base x ramp)}, where base is {@code 1 -
 * (latencyPenalty + errorPenalty)} for the Adaptive policy ({@code latencyPenalty = max(0, (score -
 * baseline) / baseline)}, {@code errorPenalty = 10 x errorRate}) and 1.0 for RoundRobin, and the
 * slow-start ramp rises linearly over {@code slowStartMillis} from 10 % (Envoy's minimum weight
 * percent). A saturated member (its reported utilization at or above {@code degradedUtilization})
 * has its Adaptive base halved ({@link HealthPolicy#SATURATED_WEIGHT_FACTOR}): a fixed factor, so
 * that the weight does not follow each report's noise. Pure functions.
 */
public final class WeightPolicy {
  /** The slow-start ramp starts at this share of the weight. */
  public static final double SLOW_START_MIN_FACTOR = 0.1;

  private WeightPolicy() {}

  /**
   * Weights as they leave the operator, in status and in snapshots: rounded to 0.01, so that small
   * score drifts do not rewrite the status or cause a push each probe. The one place that rounds.
   */
  public static double round(double weight) {
    return Math.round(weight * 100) / 100.0;
  }

  /**
   * @param latencyScoreMillis the member's latency score, empty before its first sample
   * @param saturated fresh load reports say the member is saturated
   * @param rampStartMillis when its slow-start ramp began, empty when it is not ramping
   */
  static double weight(
      HealthPolicy policy,
      MemberState state,
      OptionalDouble latencyScoreMillis,
      double errorRate,
      boolean saturated,
      OptionalLong rampStartMillis,
      long nowMillis) {
    if (state == MemberState.Unhealthy
        || state == MemberState.Draining
        || state == MemberState.Pending) {
      return 0.0;
    }
    double base = policy.weighted() ? 1.0 - penalty(policy, latencyScoreMillis, errorRate) : 1.0;
    if (saturated && policy.weighted()) {
      base *= HealthPolicy.SATURATED_WEIGHT_FACTOR;
    }
    double ramp = rampFactor(policy, rampStartMillis, nowMillis);
    return round(Math.max(policy.minWeight(), Math.min(1.0, base * ramp)));
  }

  private static double penalty(
      HealthPolicy policy, OptionalDouble latencyScoreMillis, double errorRate) {
    double baseline = policy.baselineLatencyMillis();
    double latencyPenalty =
        latencyScoreMillis.isEmpty()
            ? 0.0
            : Math.max(0.0, (latencyScoreMillis.getAsDouble() - baseline) / baseline);
    double errorPenalty = 10.0 * errorRate;
    return latencyPenalty + errorPenalty;
  }

  /** The slow-start share: 1.0 outside a ramp, else linear from 10 % over the window. */
  static double rampFactor(HealthPolicy policy, OptionalLong rampStartMillis, long nowMillis) {
    if (rampStartMillis.isEmpty() || policy.slowStartMillis() <= 0) {
      return 1.0;
    }
    long elapsed = nowMillis - rampStartMillis.getAsLong();
    if (elapsed >= policy.slowStartMillis()) {
      return 1.0;
    }
    return Math.max(SLOW_START_MIN_FACTOR, (double) elapsed / policy.slowStartMillis());
  }
}
