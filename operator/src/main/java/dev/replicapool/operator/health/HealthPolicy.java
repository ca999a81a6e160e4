package dev.replicapool.operator.health;

import dev.replicapool.api.v1alpha1.AdaptiveRouting;
import dev.replicapool.api.v1alpha1.HealthCheck;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Routing;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import io.soabase.recordbuilder.core.RecordBuilder;

/**
 * Everything the health model of one pool needs, resolved from a {@link ReplicaPoolSpec} with the
 * spec's defaults filled in.
 *
 * <p>Choices this class makes where the spec is silent:
 *
 * <ul>
 *   <li>{@code unhealthyThreshold}: {@code routing.adaptive.ejectAfterFailures} for the Adaptive
 *       policy, {@code healthCheck.unhealthyThreshold} for RoundRobin.
 *   <li>{@code slowStartMillis}: {@code min(recoverAfterMillis, 10 000)}: the weight of a member
 *       coming back from Unhealthy ramps up linearly over this window, starting at its first
 *       passing probe; with the default 30 s hold the ramp is over before the member can be Healthy
 *       again. A hold of 0 disables slow start.
 *   <li>{@code latencyWindow} = 20 probes for the p95; the latency score is an exponentially
 *       weighted average with weight {@code latencyAlpha} = 0.1 per probe (about the last 10
 *       probes), the error rate one with weight {@code errorAlpha} = 0.05 per probe (about the last
 *       20 probes), so that a single failed probe alone gives exactly 0.05, which does not exceed
 *       the default threshold, and two close together do.
 *   <li>{@code startupGraceMillis}: {@code healthCheck.startupGraceMillis}, else {@value
 *       #STARTUP_GRACE_INTERVALS} x the interval: how long a new member may stay Pending before it
 *       is Unhealthy for never having answered.
 *   <li>The thresholds of {@code routing.adaptive} (baseline, factor, error rate, hold) judge the
 *       members of RoundRobin pools too, so that their status shows a slow or erring member; but
 *       RoundRobin weights carry no penalty: see {@link #weighted()}.
 *   <li>Saturation ({@code healthCheck.degradedUtilization}, 0 here when unset: off): {@value
 *       #SATURATED_REPORTS} fresh reports in a row at or above it make a member Degraded, one below
 *       ends the condition; a report counts {@value #UTILIZATION_MAX_AGE_INTERVALS} x the interval.
 *       The last reports rather than an average: a utilization is already an average over the
 *       member's own window, and the last two react within two probes while one spike alone does
 *       not degrade (as two failures in a row do, one does not).
 * </ul>
 */
@RecordBuilder
public record HealthPolicy(
    RoutingPolicy routingPolicy,
    boolean activeChecks,
    String path,
    long intervalMillis,
    long timeoutMillis,
    int unhealthyThreshold,
    int healthyThreshold,
    long baselineLatencyMillis,
    double degradedLatencyFactor,
    double errorRateThreshold,
    double minWeight,
    long recoverAfterMillis,
    long slowStartMillis,
    int latencyWindow,
    double latencyAlpha,
    double errorAlpha,
    long startupGraceMillis,
    int maxRecoveriesPerMinute,
    double degradedUtilization) {

  /** A report counts this many intervals after its probe; then the member is judged as silent. */
  public static final int UTILIZATION_MAX_AGE_INTERVALS = 3;

  /** Fresh reports at or above {@code degradedUtilization} in a row that make a member Degraded. */
  public static final int SATURATED_REPORTS = 2;

  /** The weight factor of a saturated member (Adaptive only, before minWeight). */
  public static final double SATURATED_WEIGHT_FACTOR = 0.5;

  /** Upper bound of the default slow-start window. */
  public static final long MAX_DEFAULT_SLOW_START_MILLIS = 10_000;

  /** Without {@code healthCheck.startupGraceMillis}, a new member has this many intervals. */
  public static final int STARTUP_GRACE_INTERVALS = HealthCheck.STARTUP_GRACE_INTERVALS;

  public static final int DEFAULT_LATENCY_WINDOW = 20;
  public static final double DEFAULT_LATENCY_ALPHA = 0.1;
  public static final double DEFAULT_ERROR_ALPHA = 0.05;

  public HealthPolicy {
    if (routingPolicy == null) {
      throw new IllegalArgumentException("routingPolicy is required");
    }
    if (intervalMillis <= 0 || timeoutMillis <= 0) {
      throw new IllegalArgumentException("interval and timeout must be positive");
    }
    if (unhealthyThreshold < 1 || healthyThreshold < 1) {
      throw new IllegalArgumentException("thresholds must be at least 1");
    }
    if (baselineLatencyMillis < 1) {
      throw new IllegalArgumentException("baselineLatencyMillis must be at least 1");
    }
    if (minWeight < 0 || minWeight > 1) {
      throw new IllegalArgumentException("minWeight must be within 0..1");
    }
    if (recoverAfterMillis < 0 || slowStartMillis < 0) {
      throw new IllegalArgumentException("recoverAfterMillis and slowStartMillis must be >= 0");
    }
    if (startupGraceMillis < 0) {
      throw new IllegalArgumentException("startupGraceMillis must be >= 0");
    }
    if (degradedUtilization < 0 || degradedUtilization > 1) {
      throw new IllegalArgumentException("degradedUtilization must be within (0, 1], or 0 for off");
    }
    if (maxRecoveriesPerMinute < 1) {
      throw new IllegalArgumentException("maxRecoveriesPerMinute must be at least 1");
    }
    if (latencyWindow < 1) {
      throw new IllegalArgumentException("latencyWindow must be at least 1");
    }
    if (!(latencyAlpha > 0 && latencyAlpha <= 1) || !(errorAlpha > 0 && errorAlpha <= 1)) {
      throw new IllegalArgumentException("alphas must be within (0, 1]");
    }
    path = path == null ? "/healthz" : path;
  }

  /** The policy of a pool whose spec leaves everything at its defaults. */
  public static HealthPolicy defaults() {
    return from(new ReplicaPoolSpec());
  }

  /** Resolves a spec, any part of which may be null, into a policy. */
  public static HealthPolicy from(ReplicaPoolSpec spec) {
    HealthCheck defaultsHc = new HealthCheck();
    AdaptiveRouting defaultsAr = new AdaptiveRouting();
    HealthCheck hc = spec == null || spec.healthCheck == null ? defaultsHc : spec.healthCheck;
    Routing routing = spec == null ? null : spec.routing;
    RoutingPolicy policy =
        routing == null || routing.policy == null ? RoutingPolicy.RoundRobin : routing.policy;
    AdaptiveRouting ar =
        routing == null || routing.adaptive == null ? defaultsAr : routing.adaptive;

    int unhealthy =
        policy == RoutingPolicy.Adaptive
            ? or(ar.ejectAfterFailures, defaultsAr.ejectAfterFailures)
            : or(hc.unhealthyThreshold, defaultsHc.unhealthyThreshold);
    long recover = or(ar.recoverAfterMillis, defaultsAr.recoverAfterMillis);
    long interval = hc.intervalMillisOrDefault();
    return new HealthPolicy(
        policy,
        hc.enabled == null ? true : hc.enabled,
        hc.path == null ? defaultsHc.path : hc.path,
        interval,
        hc.timeoutMillisOrDefault(),
        unhealthy,
        or(hc.healthyThreshold, defaultsHc.healthyThreshold),
        or(ar.baselineLatencyMillis, defaultsAr.baselineLatencyMillis),
        ar.degradedLatencyFactor == null
            ? defaultsAr.degradedLatencyFactor
            : ar.degradedLatencyFactor,
        ar.errorRateThreshold == null ? defaultsAr.errorRateThreshold : ar.errorRateThreshold,
        ar.minWeight == null ? defaultsAr.minWeight : ar.minWeight,
        recover,
        Math.min(recover, MAX_DEFAULT_SLOW_START_MILLIS),
        DEFAULT_LATENCY_WINDOW,
        DEFAULT_LATENCY_ALPHA,
        DEFAULT_ERROR_ALPHA,
        hc.startupGraceMillis == null ? STARTUP_GRACE_INTERVALS * interval : hc.startupGraceMillis,
        or(hc.maxRecoveriesPerMinute, defaultsHc.maxRecoveriesPerMinute),
        hc.degradedUtilization == null ? 0.0 : hc.degradedUtilization);
  }

  private static int or(Integer value, int fallback) {
    return value == null ? fallback : value;
  }

  /**
   * True for the Adaptive policy: weights carry the latency and error penalties. RoundRobin keeps
   * equal shares: a Healthy or Degraded member weighs 1.0 (times the slow-start ramp), because
   * round-robin promises a deterministic equal split; Degraded shows in status only there.
   */
  public boolean weighted() {
    return routingPolicy == RoutingPolicy.Adaptive;
  }

  /** True when reported utilization can make a member Degraded ({@code degradedUtilization}). */
  public boolean saturationChecked() {
    return degradedUtilization > 0;
  }

  /** How long a reported utilization counts: {@value #UTILIZATION_MAX_AGE_INTERVALS} intervals. */
  public long utilizationMaxAgeMillis() {
    return UTILIZATION_MAX_AGE_INTERVALS * intervalMillis;
  }

  public HealthPolicy withDegradedUtilization(double threshold) {
    return edit().degradedUtilization(threshold).build();
  }

  /** p95 latency above this makes a member Degraded: factor x baseline. */
  public double degradedLatencyLimitMillis() {
    return degradedLatencyFactor * baselineLatencyMillis;
  }

  /**
   * Expected time from a member's death to its ejection: interval x unhealthy threshold (a dead
   * member fails fast; a hanging one adds up to one timeout). S1's 200 ms x 1 = 200 ms
   * (docs/SCENARIOS.md).
   */
  public long detectionMillis() {
    return intervalMillis * unhealthyThreshold;
  }

  public HealthPolicy withIntervalMillis(long interval, long timeout) {
    return edit().intervalMillis(interval).timeoutMillis(timeout).build();
  }

  public HealthPolicy withThresholds(int unhealthy, int healthy) {
    return edit().unhealthyThreshold(unhealthy).healthyThreshold(healthy).build();
  }

  public HealthPolicy withMaxRecoveriesPerMinute(int max) {
    return edit().maxRecoveriesPerMinute(max).build();
  }

  public HealthPolicy withRecovery(long recoverAfter, long slowStart) {
    return edit().recoverAfterMillis(recoverAfter).slowStartMillis(slowStart).build();
  }

  private HealthPolicyBuilder edit() {
    return HealthPolicyBuilder.builder(this);
  }
}
