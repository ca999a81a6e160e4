package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * Slow start of members that join a pool which already has routable members: their weight ramps up
 * over a window instead of taking a full share at once.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
// The schema's minimum lets an integer 0 through (it compares integers to the bound truncated).
@ValidationRule(
    value = "self.aggression >= 0.1",
    message = "aggression must be at least 0.1",
    fieldPath = ".aggression")
public class SlowStart {
  @JsonPropertyDescription(
      "How long a joining member's weight ramps up, counted from when the data plane first"
          + " routes to it. Required. Milliseconds.")
  @Required
  @Min(1)
  @Max(3_600_000)
  public Long windowMillis;

  @JsonPropertyDescription(
      "Shape of the ramp: weight x (t / window)^(1 / aggression); 1.0 is linear, above 1 the"
          + " weight rises faster early on. Default 1.0. An exponent.")
  @Default("1.0")
  @Min(0.1)
  @Max(100.0)
  public Double aggression = 1.0;

  @JsonPropertyDescription(
      "Share of its weight a joining member gets at least. Default 10. Percent.")
  @Default("10")
  @Min(0)
  @Max(100)
  public Integer minWeightPercent = 10;
}
