package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * How long the data plane waits for a pool's members; requestMillis and perTryMillis 0 mean no
 * limit.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!has(self.perTryMillis) || !has(self.requestMillis) || self.perTryMillis == 0"
            + " || self.requestMillis == 0 || self.perTryMillis <= self.requestMillis",
    message =
        "routing.timeouts.perTryMillis must not exceed routing.timeouts.requestMillis when both"
            + " are above 0 (their default, none): the whole request would end before its try"
            + " could time out",
    fieldPath = ".perTryMillis",
    reason = "FieldValueInvalid")
public class Timeouts {
  @JsonPropertyDescription(
      "The whole request, from its arrival at the data plane to the end of the answer, in"
          + " milliseconds, every try and hedge included. Past it the client gets 504 when no"
          + " answer has started, or its stream is reset (its connection closed, for HTTP/1.1)"
          + " when one has. For gRPC a shorter grpc-timeout of the call wins. 0: none."
          + " WebSocket tunnels are not bounded once open. Default 0 (none). Milliseconds.")
  @Default("0")
  @Min(0)
  @Max(86_400_000)
  public Long requestMillis = 0L;

  @JsonPropertyDescription(
      "One try: a member that has not sent the answer's head this long after the request"
          + " went to it is given up on, counted as failed, and the request is tried on another"
          + " member when it may be retried (idempotent, no body, within the retry budget);"
          + " otherwise the client gets 504. 0: none. At most requestMillis when both are above"
          + " 0. Default 0 (none). Milliseconds.")
  @Default("0")
  @Min(0)
  @Max(86_400_000)
  public Long perTryMillis = 0L;

  @JsonPropertyDescription(
      "A member silent this long in the middle of a request or an answer: the client gets 504,"
          + " or its answer is cut when it has started. The same time bounds a client's stall,"
          + " never counted against the member: a client that sends none of the rest of its"
          + " request while the member waits for it gets 408, one that takes none of the answer"
          + " has it cut. Default: the data plane's"
          + " --upstream-timeout-ms (30000 unless the data plane is started with another),"
          + " left unset in the stored pool because each data plane has its own. Milliseconds.")
  @Min(1)
  @Max(86_400_000)
  public Long idleMillis;
}
