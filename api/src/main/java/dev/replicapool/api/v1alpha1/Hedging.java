package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * Hedged requests: a second try of an idempotent request to another member when the first has not
 * answered within a delay. The first answer wins; the other try is cancelled.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.delayMillis) != has(self.delayPercentile)",
    message = "set exactly one of delayMillis and delayPercentile")
@ValidationRule(
    value = "!has(self.idempotentMethods) || self.idempotentMethods.all(m, m.matches('^[A-Z]+$'))",
    message =
        "idempotentMethods must be upper-case HTTP method tokens such as PUT or DELETE: methods"
            + " are case-sensitive, so put would never match a PUT request",
    fieldPath = ".idempotentMethods",
    reason = "FieldValueInvalid")
public class Hedging {
  @JsonPropertyDescription(
      "Send a hedge when a try has no answer's head this long after it had the whole request"
          + " (a request's body still coming is not hedged). Default: none"
          + " (exactly one of delayMillis and delayPercentile is required). Milliseconds.")
  @Min(1)
  @Max(60_000)
  public Long delayMillis;

  @JsonPropertyDescription(
      "Send a hedge when a try has waited longer than this percentile of the pool's recent"
          + " answer times (time to the answer's head, over the last 10 to 20 seconds), for"
          + " example 95; until 100 answers were seen, 2 x the pool's baseline latency. Default:"
          + " none (exactly one of delayMillis and delayPercentile is required). A percentile.")
  @Min(50)
  @Max(99.9)
  public Double delayPercentile;

  @JsonPropertyDescription(
      "At most this many hedges per request, each to a member not tried yet, one delay apart."
          + " Default 1. A count of hedges.")
  @Default("1")
  @Min(1)
  @Max(3)
  public Integer maxHedges = 1;

  @JsonPropertyDescription(
      "Methods besides GET, HEAD and OPTIONS that this pool's members treat as idempotent, for"
          + " example PUT or DELETE; kept for compatibility: routing.idempotent.methods is the"
          + " pool's list, and the data plane uses the union of both, for retries and hedges."
          + " Upper case, as methods are case-sensitive. Default: none. Only requests without a body"
          + " are hedged.")
  @Size(max = 32)
  public List<@Size(max = 32) String> idempotentMethods;
}
