package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * Self-registration through Leases. Lease's own leaseDurationSeconds is too coarse for sub-second
 * failure detection, so the pool's millisecond setting rules.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "self.leaseDurationMillis >= 3 * self.renewIntervalMillis",
    message =
        "registration.leaseDurationMillis (default 900) must be at least three renewals long:"
            + " 3 x registration.renewIntervalMillis (default 300)",
    fieldPath = ".leaseDurationMillis")
public class Registration {
  @JsonPropertyDescription(
      "A member is alive while its last Lease renewal is younger than this many milliseconds."
          + " There is no deregistration: only expiry removes a member. At least 3 x"
          + " renewIntervalMillis. Default 900. Milliseconds.")
  @Default("900")
  @Min(100)
  @Max(3_600_000)
  public Integer leaseDurationMillis = 900;

  @JsonPropertyDescription(
      "How often registrars renew their Lease; at most a third of leaseDurationMillis. Default"
          + " 300. Milliseconds.")
  @Default("300")
  @Min(10)
  @Max(1_200_000)
  public Integer renewIntervalMillis = 300;
}
