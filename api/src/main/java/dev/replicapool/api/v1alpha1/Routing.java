package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;

/** How the data plane picks a member for each request. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class Routing {
  @JsonPropertyDescription(
      "RoundRobin: smooth weighted round-robin, deterministic. Adaptive: power of two choices"
          + " drawn by weight, preferring the member with the lower latency x (in-flight + 1).")
  @Default("RoundRobin")
  public RoutingPolicy policy = RoutingPolicy.RoundRobin;

  @JsonPropertyDescription("Health and weight parameters of the Adaptive policy.")
  @Default("{}")
  public AdaptiveRouting adaptive = new AdaptiveRouting();

  @JsonPropertyDescription("Passive outlier detection on the data plane.")
  @Default("{}")
  public OutlierDetection outlierDetection = new OutlierDetection();

  @JsonPropertyDescription("Retries on the data plane.")
  @Default("{}")
  public Retry retry = new Retry();
}
