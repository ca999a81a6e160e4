package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** Capacity figures; rounded to two (rates) or three (utilizations) decimals. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CapacityStatus {
  @JsonPropertyDescription("Replicas needed at peak: ceil(peak / (perReplica x target)).")
  public Integer minReplicas;

  @JsonPropertyDescription("Highest rate per replica that keeps the target: perReplica x target.")
  public Double safeRequestsPerSecondPerReplica;

  @JsonPropertyDescription("Peak load divided by the replicas counted (routable, else minimum).")
  public Double perReplicaRequestsPerSecond;

  @JsonPropertyDescription("Utilization of each replica at peak.")
  public Double utilization;

  @JsonPropertyDescription("Peak load per replica after one more member fails.")
  public Double perReplicaRequestsPerSecondAfterOneFailure;

  @JsonPropertyDescription("Utilization of each replica after one more member fails.")
  public Double utilizationAfterOneFailure;

  @JsonPropertyDescription("Probe requests per second the health check costs: members / interval.")
  public Double healthCheckRequestsPerSecond;

  @JsonPropertyDescription(
      "Requests expected to fail per member failure before detection: peak / members x"
          + " detection time.")
  public Double droppedRequestsPerFailure;

  @JsonPropertyDescription(
      "Mean utilization the routable members report now (their load reports), when every one of"
          + " them reports; measured, where utilization is planned from the peak.")
  public Double reportedUtilization;

  @JsonPropertyDescription(
      "The reported utilization after one more member fails, its load spread over the others.")
  public Double reportedUtilizationAfterOneFailure;

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof CapacityStatus c)) {
      return false;
    }
    return Objects.equals(minReplicas, c.minReplicas)
        && Objects.equals(safeRequestsPerSecondPerReplica, c.safeRequestsPerSecondPerReplica)
        && Objects.equals(perReplicaRequestsPerSecond, c.perReplicaRequestsPerSecond)
        && Objects.equals(utilization, c.utilization)
        && Objects.equals(
            perReplicaRequestsPerSecondAfterOneFailure,
            c.perReplicaRequestsPerSecondAfterOneFailure)
        && Objects.equals(utilizationAfterOneFailure, c.utilizationAfterOneFailure)
        && Objects.equals(healthCheckRequestsPerSecond, c.healthCheckRequestsPerSecond)
        && Objects.equals(droppedRequestsPerFailure, c.droppedRequestsPerFailure)
        && Objects.equals(reportedUtilization, c.reportedUtilization)
        && Objects.equals(reportedUtilizationAfterOneFailure, c.reportedUtilizationAfterOneFailure);
  }

  @Override
  public int hashCode() {
    return Objects.hash(minReplicas, utilization);
  }
}
