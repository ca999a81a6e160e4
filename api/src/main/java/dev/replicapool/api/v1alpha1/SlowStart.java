package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * Slow start of members that join a pool which already has routable members: their weight ramps up
 * over a window instead of taking a full share at once.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SlowStart {
  @JsonPropertyDescription("How long a joining member's weight ramps up, in milliseconds.")
  public Long windowMillis;

  @JsonPropertyDescription(
      "Shape of the ramp: weight x (t / window)^(1 / aggression); 1.0 is linear.")
  public Double aggression;

  @JsonPropertyDescription("Share of its weight a joining member gets at least, in percent.")
  public Integer minWeightPercent;
}
