package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * Capacity planning inputs. S1 of docs/SCENARIOS.md uses 513.89 req/s peak, 400 req/s per replica
 * and a target of 0.5.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "self.targetUtilization > 0.0",
    message = "targetUtilization must be above 0",
    fieldPath = ".targetUtilization")
@ValidationRule(
    value = "self.perReplicaRequestsPerSecond > 0.0",
    message = "perReplicaRequestsPerSecond must be above 0",
    fieldPath = ".perReplicaRequestsPerSecond")
public class Capacity {
  @JsonPropertyDescription("Expected peak load of the whole pool. Required. Requests per second.")
  @Required
  @Min(0.0)
  public Double peakRequestsPerSecond;

  @JsonPropertyDescription(
      "What one replica serves at full utilization. Required. Requests per second.")
  @Required
  @Min(0.0)
  public Double perReplicaRequestsPerSecond;

  @JsonPropertyDescription(
      "Utilization each replica should stay at or below, also after one member fails. Default"
          + " 0.5. A fraction (0-1].")
  @Default("0.5")
  @Min(0.0)
  @Max(1.0)
  public Double targetUtilization = 0.5;
}
