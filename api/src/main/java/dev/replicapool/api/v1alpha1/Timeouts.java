package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/** How long the data plane waits for a pool's members; every field unset or 0 means no limit. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class Timeouts {
  @JsonPropertyDescription(
      "The whole request, from its arrival at the data plane to the end of the answer, in"
          + " milliseconds, every try and hedge included. Past it the client gets 504 when no"
          + " answer has started, or its stream is reset (its connection closed, for HTTP/1.1)"
          + " when one has. For gRPC a shorter grpc-timeout of the call wins. Unset or 0: none."
          + " WebSocket tunnels are not bounded once open.")
  @Min(0)
  @Max(86_400_000)
  public Long requestMillis;

  @JsonPropertyDescription(
      "One try: a member that has not sent the answer's head this long after the request"
          + " went to it is given up on, counted as failed, and the request is tried on another"
          + " member when it may be retried (idempotent, no body, within the retry budget);"
          + " otherwise the client gets 504. Unset or 0: none.")
  @Min(0)
  @Max(86_400_000)
  public Long perTryMillis;

  @JsonPropertyDescription(
      "A member silent this long in the middle of a request or an answer: the client gets 504,"
          + " or its answer is cut when it has started. Unset: the data plane's"
          + " --upstream-timeout-ms (30 s by default).")
  @Min(1)
  @Max(86_400_000)
  public Long idleMillis;
}
