package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/**
 * Where requests wait when every member is at maxRequestsPerMember: in arrival order, for the first
 * member with a free slot.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RequestQueue {
  @JsonPropertyDescription(
      "How many requests may wait per data plane; one more is answered 503 at once.")
  @Default("0")
  @Min(0)
  @Max(1_000_000)
  public Integer maxPending = 0;

  @JsonPropertyDescription("How long a request waits for a free member before it gets 503.")
  @Default("1000")
  @Min(1)
  @Max(600_000)
  public Long timeoutMillis = 1000L;
}
