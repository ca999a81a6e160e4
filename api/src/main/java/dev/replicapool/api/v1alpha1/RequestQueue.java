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
  /**
   * How many requests wait when a queue is given without maxPending. Writing {@code queue:
   * {timeoutMillis: 3000}} asks for requests to wait; a default of 0 made that queue nothing. 1024
   * is Envoy's default for its pending requests per cluster; the queue's timeout bounds how long
   * each is held.
   */
  public static final int DEFAULT_MAX_PENDING = 1024;

  /** How long a request waits in the queue when timeoutMillis is not given. */
  public static final long DEFAULT_TIMEOUT_MILLIS = 1000;

  @JsonPropertyDescription(
      "How many requests may wait per data plane; one more is answered 503 at once. 0: none"
          + " waits (the same as no queue). Default 1024. A count of requests.")
  @Default("1024")
  @Min(0)
  @Max(1_000_000)
  public Integer maxPending = DEFAULT_MAX_PENDING;

  @JsonPropertyDescription(
      "How long a request waits for a free member before it gets 503. Default 1000."
          + " Milliseconds.")
  @Default("1000")
  @Min(1)
  @Max(600_000)
  public Long timeoutMillis = DEFAULT_TIMEOUT_MILLIS;
}
