package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/**
 * Bounds retries and hedges together against the requests a pool receives, so that a pool whose
 * members all fail does not get its load multiplied.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RetryBudget {
  @JsonPropertyDescription(
      "Retries and hedges together may add at most this percentage of the pool's requests over"
          + " the last 10 seconds; 0 allows only minRetriesPerSecond. Default 20. Percent.")
  @Default("20")
  @Min(0)
  @Max(100)
  public Integer percent = 20;

  @JsonPropertyDescription(
      "Retries and hedges allowed per second whatever the percentage gives (a floor for pools"
          + " with little traffic). Default 10. Retries per second.")
  @Default("10")
  @Min(0)
  @Max(100_000)
  public Integer minRetriesPerSecond = 10;
}
