package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** One member as the operator sees it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EndpointStatus {
  @JsonPropertyDescription("host:port of the member.")
  public String address;

  @JsonPropertyDescription("Where the member came from: Pod, Static or Lease.")
  public MemberSource source;

  @JsonPropertyDescription("Pod or Lease name, when the member has one.")
  public String name;

  @JsonPropertyDescription("Pending, Healthy, Degraded, Unhealthy or Draining.")
  public MemberState state;

  @JsonPropertyDescription("Share of traffic relative to a healthy member: 0 to 1.")
  public Double weight;

  @JsonPropertyDescription("p95 of recent probe latencies, milliseconds.")
  public Long latencyP95Millis;

  @JsonPropertyDescription("Decaying share of failed probes, 0 to 1.")
  public Double errorRate;

  @JsonPropertyDescription(
      "Utilization the member last reported on a probe's answer (ORCA endpoint-load-metrics),"
          + " 0 to 1 (above 1 past its soft limits); absent when it does not report or its last"
          + " report is stale.")
  public Double utilization;

  @JsonPropertyDescription("When the member's Lease expires unless renewed (Lease members only).")
  public String leaseExpiresAt;

  @JsonPropertyDescription("When the member last changed state.")
  public String lastTransitionTime;

  @JsonPropertyDescription("Why the member is in its state.")
  public String message;

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof EndpointStatus e)) {
      return false;
    }
    return Objects.equals(address, e.address)
        && source == e.source
        && Objects.equals(name, e.name)
        && state == e.state
        && Objects.equals(weight, e.weight)
        && Objects.equals(latencyP95Millis, e.latencyP95Millis)
        && Objects.equals(errorRate, e.errorRate)
        && Objects.equals(utilization, e.utilization)
        && Objects.equals(leaseExpiresAt, e.leaseExpiresAt)
        && Objects.equals(lastTransitionTime, e.lastTransitionTime)
        && Objects.equals(message, e.message);
  }

  @Override
  public int hashCode() {
    return Objects.hash(address, source, state, weight);
  }
}
