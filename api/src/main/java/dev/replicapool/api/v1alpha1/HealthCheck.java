package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.ValidationRule;

/** Active HTTP probing: success is a 2xx within the timeout, anything else is a failure. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "self.timeoutMillis < self.intervalMillis",
    message = "timeoutMillis must be below intervalMillis, or probes of one member would overlap",
    fieldPath = ".timeoutMillis")
@ValidationRule(
    value = "!has(self.startupGraceMillis) || self.startupGraceMillis >= self.intervalMillis",
    message =
        "startupGraceMillis must be at least intervalMillis, or a new member would be judged"
            + " before its first probe",
    fieldPath = ".startupGraceMillis")
public class HealthCheck {
  @JsonPropertyDescription(
      "Probe members actively. When false, only passive signals (lease, data-plane outlier"
          + " detection) decide.")
  @Default("true")
  public Boolean enabled = true;

  @JsonPropertyDescription("HTTP path probed with GET on every member.")
  @Default("/healthz")
  @Pattern("^/[^\\s]*$")
  public String path = "/healthz";

  @JsonPropertyDescription("Milliseconds between two probes of the same member.")
  @Default("1000")
  @Min(50)
  @Max(300_000)
  public Integer intervalMillis = 1000;

  @JsonPropertyDescription("Milliseconds a probe may take before it counts as a failure.")
  @Default("500")
  @Min(10)
  @Max(60_000)
  public Integer timeoutMillis = 500;

  @JsonPropertyDescription(
      "Consecutive failed probes that make a member Unhealthy (the adaptive policy uses"
          + " routing.adaptive.ejectAfterFailures instead).")
  @Default("3")
  @Min(1)
  @Max(100)
  public Integer unhealthyThreshold = 3;

  @JsonPropertyDescription(
      "Consecutive passing probes that make a new (Pending) member Healthy, and that bring an"
          + " Unhealthy member back (through Degraded).")
  @Default("1")
  @Min(1)
  @Max(100)
  public Integer healthyThreshold = 1;

  @JsonPropertyDescription(
      "Milliseconds a new member may stay Pending (not routable, no Warning Events) before it is"
          + " Unhealthy for never having passed its health check; unset: 10 x intervalMillis.")
  @Min(50)
  @Max(3_600_000)
  public Integer startupGraceMillis;
}
