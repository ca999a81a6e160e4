package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;

/** Passive ejection by the data plane, independent of the operator's probes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "self.maxEjectionMillis >= self.baseEjectionMillis",
    message =
        "routing.outlierDetection.maxEjectionMillis (default 30000) must not be below"
            + " routing.outlierDetection.baseEjectionMillis (default 1000)",
    fieldPath = ".maxEjectionMillis")
public class OutlierDetection {
  @JsonPropertyDescription(
      "Consecutive connect failures or 5xx answers that eject a member locally; 0 turns passive"
          + " ejection off. Default 5. A count of answers.")
  @Default("5")
  @Min(0)
  @Max(1000)
  public Integer consecutiveFailures = 5;

  @JsonPropertyDescription(
      "First ejection length; each further ejection lasts this x the number of ejections so"
          + " far, up to maxEjectionMillis. Default 1000. Milliseconds.")
  @Default("1000")
  @Min(10)
  @Max(3_600_000)
  public Integer baseEjectionMillis = 1000;

  @JsonPropertyDescription(
      "Longest ejection; at least baseEjectionMillis. Default 30000. Milliseconds.")
  @Default("30000")
  @Min(10)
  @Max(3_600_000)
  public Integer maxEjectionMillis = 30_000;

  @JsonPropertyDescription(
      "At most this share of a pool's members is ejected at once. Default 50. Percent.")
  @Default("50")
  @Min(0)
  @Max(100)
  public Integer maxEjectionPercent = 50;
}
