package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/**
 * Parameters of the health model: weight = max(minWeight, 1 - (latencyPenalty + errorPenalty)) with
 * latencyPenalty = max(0, (latency - baseline) / baseline), errorPenalty = 10 x errorRate.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AdaptiveRouting {
  @JsonPropertyDescription("Expected latency of a healthy member. Default 100. Milliseconds.")
  @Default("100")
  @Min(1)
  @Max(600_000)
  public Integer baselineLatencyMillis = 100;

  @JsonPropertyDescription(
      "A member is Degraded when its windowed p95 latency exceeds this factor x"
          + " baselineLatencyMillis. Default 2.0. A factor.")
  @Default("2.0")
  @Min(1.0)
  @Max(100.0)
  public Double degradedLatencyFactor = 2.0;

  @JsonPropertyDescription(
      "A member is Degraded when its error rate exceeds this. Default 0.05. A fraction (0-1).")
  @Default("0.05")
  @Min(0.0)
  @Max(1.0)
  public Double errorRateThreshold = 0.05;

  @JsonPropertyDescription(
      "Lowest weight a Degraded member keeps, so that its recovery can be seen. Default 0.1. A"
          + " fraction (0-1) of a full weight.")
  @Default("0.1")
  @Min(0.0)
  @Max(1.0)
  public Double minWeight = 0.1;

  @JsonPropertyDescription(
      "Time of good results before a Degraded member is Healthy again (hysteresis). Default"
          + " 30000. Milliseconds.")
  @Default("30000")
  @Min(0)
  @Max(3_600_000)
  public Integer recoverAfterMillis = 30_000;

  @JsonPropertyDescription(
      "Consecutive failures that make a member of an Adaptive pool Unhealthy. Default 5. A count"
          + " of failures.")
  @Default("5")
  @Min(1)
  @Max(1000)
  public Integer ejectAfterFailures = 5;
}
