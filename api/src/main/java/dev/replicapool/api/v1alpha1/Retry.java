package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/**
 * Retries. A request that never reached a member (refused, reset before sending) is always safe to
 * send elsewhere.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class Retry {
  @JsonPropertyDescription(
      "How many other members a request that never reached a member is retried on. Default 1."
          + " A count of retries.")
  @Default("1")
  @Min(0)
  @Max(5)
  public Integer connectFailureRetries = 1;

  @JsonPropertyDescription(
      "Also send idempotent requests (GET, HEAD, OPTIONS and the methods and gRPC calls"
          + " routing.idempotent names) to another member once when one answers 502 or 503,"
          + " if the proxy still has the whole request (bodies up to 64 KiB are kept). Default"
          + " false.")
  @Default("false")
  public Boolean retryIdempotentOn5xx = false;

  @JsonPropertyDescription(
      "Bounds retries and hedges together to a share of the pool's requests. Default: each"
          + " field's own default (20 percent, at least 10 per second).")
  @Default("{}")
  public RetryBudget budget = new RetryBudget();
}
