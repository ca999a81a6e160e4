package dev.replicapool.operator.health;

import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.MemberState;
import java.time.Instant;

/**
 * One member's health at one moment, immutable.
 *
 * @param latencyP95Millis p95 of the latency window, null before the first latency sample
 * @param utilization the utilization the member last reported (rounded to 0.01 in status), null
 *     when it does not report or its last report is stale
 */
public record HealthSnapshot(
    MemberState state,
    double weight,
    Long latencyP95Millis,
    double errorRate,
    String reason,
    Instant lastTransition,
    int consecutiveFailures,
    int consecutiveSuccesses,
    Double utilization) {

  /** True when the member gets traffic now: Healthy or Degraded with a weight above 0. */
  public boolean routable() {
    return (state == MemberState.Healthy || state == MemberState.Degraded) && weight > 0;
  }

  /**
   * Copies the health fields into a status row (state, weight, p95, error rate rounded to three
   * decimals, last transition, message); address, source, name and lease expiry stay the caller's.
   */
  public EndpointStatus applyTo(EndpointStatus row) {
    row.state = state;
    row.weight = weight;
    row.latencyP95Millis = latencyP95Millis;
    row.errorRate = Math.round(errorRate * 1000) / 1000.0;
    row.utilization = utilization == null ? null : Math.round(utilization * 100) / 100.0;
    row.lastTransitionTime = lastTransition.toString();
    row.message = reason;
    return row;
  }
}
