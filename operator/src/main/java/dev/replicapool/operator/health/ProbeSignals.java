package dev.replicapool.operator.health;

import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * What one member's probes say: the current streak of passes or failures, the error rate, the
 * latencies; and the first of the Degraded conditions they meet. Plain data, times passed in.
 *
 * <p>Latency samples come from passing probes, and from failed probes that took at least the
 * timeout (a hanging member is slow); a fast failure (connection refused, quick 500) counts in the
 * error rate only, so failing fast never looks fast (linkerd2 #11669). The error rate is an
 * exponentially weighted average of failures with weight {@code errorAlpha} per probe.
 */
final class ProbeSignals {
  private final HealthPolicy policy;
  private final LatencyWindow latencies;
  private double errorRate;
  private int consecutiveFailures;
  private int consecutiveSuccesses;
  private OptionalLong streakStartMillis = OptionalLong.empty();

  /** The utilization the last report said, and when; NaN / empty before the first report. */
  private double utilization = Double.NaN;

  private OptionalLong utilizationAtMillis = OptionalLong.empty();

  /** Fresh reports in a row at or above the policy's degradedUtilization. */
  private int saturatedReports;

  /** What the last failed probe said ("connection refused"), null after a pass or if unknown. */
  private String lastFailure;

  ProbeSignals(HealthPolicy policy) {
    this.policy = policy;
    this.latencies = new LatencyWindow(policy.latencyWindow(), policy.latencyAlpha());
  }

  void passed(long latencyMillis, long now) {
    consecutiveFailures = 0;
    lastFailure = null;
    if (consecutiveSuccesses++ == 0) {
      streakStartMillis = OptionalLong.of(now);
    }
    latencies.record(latencyMillis);
    errorRate = errorRate * (1 - policy.errorAlpha());
  }

  void failed(long latencyMillis, String why) {
    lastFailure = why;
    consecutiveSuccesses = 0;
    streakStartMillis = OptionalLong.empty();
    consecutiveFailures++;
    if (latencyMillis >= policy.timeoutMillis()) {
      latencies.record(latencyMillis);
    }
    double a = policy.errorAlpha();
    errorRate = errorRate * (1 - a) + a;
  }

  /** A pass before the member was ever routable: the error rate holds nothing from before. */
  void passedAtStartup(long latencyMillis) {
    consecutiveFailures = 0;
    lastFailure = null;
    consecutiveSuccesses++;
    latencies.record(latencyMillis);
    errorRate = 0;
  }

  /** A failure before the member was ever routable: it ends the streak and leaves no trace. */
  void failedAtStartup(String why) {
    lastFailure = why;
    consecutiveSuccesses = 0;
    consecutiveFailures++;
  }

  /**
   * A probe's answer reported {@code reported} utilization at {@code now}. A report after the last
   * one went stale starts the run of saturated reports again.
   */
  void reported(double reported, long now) {
    boolean saturated = policy.saturationChecked() && reported >= policy.degradedUtilization();
    if (!saturated) {
      saturatedReports = 0;
    } else if (fresh(now)) {
      saturatedReports++;
    } else {
      saturatedReports = 1;
    }
    utilization = reported;
    utilizationAtMillis = OptionalLong.of(now);
  }

  /** The last reported utilization while it counts (within the policy's bound), else empty. */
  OptionalDouble utilization(long now) {
    return fresh(now) ? OptionalDouble.of(utilization) : OptionalDouble.empty();
  }

  private boolean fresh(long now) {
    return utilizationAtMillis.isPresent()
        && now - utilizationAtMillis.getAsLong() <= policy.utilizationMaxAgeMillis();
  }

  /** True when fresh reports say the member is saturated. */
  boolean saturated(long now) {
    return policy.saturationChecked()
        && saturatedReports >= HealthPolicy.SATURATED_REPORTS
        && fresh(now);
  }

  /** The first Degraded condition that holds at {@code now}, as a reason naming its number. */
  Optional<String> degradedCause(long now) {
    if (consecutiveFailures >= 2) {
      return Optional.of(failures());
    }
    if (errorRate > policy.errorRateThreshold()) {
      return Optional.of(
          "error rate "
              + Fmt.like(errorRate, policy.errorRateThreshold())
              + " > "
              + Fmt.num(policy.errorRateThreshold()));
    }
    OptionalLong p95 = latencies.p95();
    if (p95.isPresent() && p95.getAsLong() > policy.degradedLatencyLimitMillis()) {
      return Optional.of(
          String.format(
              Locale.ROOT,
              "p95 %dms > %s x %dms",
              p95.getAsLong(),
              Fmt.num(policy.degradedLatencyFactor()),
              policy.baselineLatencyMillis()));
    }
    if (saturated(now)) {
      return Optional.of(
          "saturated: utilization "
              + Fmt.like(utilization, policy.degradedUtilization())
              + " >= "
              + Fmt.like(policy.degradedUtilization(), policy.degradedUtilization()));
    }
    return Optional.empty();
  }

  /** "3 probes failed in a row: connection refused": the streak and what the last one said. */
  String failures() {
    return Fmt.failures(consecutiveFailures) + (lastFailure == null ? "" : ": " + lastFailure);
  }

  /** What the last failed probe said; null after a pass, or when the prober did not say. */
  String lastFailure() {
    return lastFailure;
  }

  LatencyWindow latencies() {
    return latencies;
  }

  double errorRate() {
    return errorRate;
  }

  int consecutiveFailures() {
    return consecutiveFailures;
  }

  int consecutiveSuccesses() {
    return consecutiveSuccesses;
  }

  /** When the current passing streak began; empty after a failure. */
  OptionalLong streakStartMillis() {
    return streakStartMillis;
  }
}
