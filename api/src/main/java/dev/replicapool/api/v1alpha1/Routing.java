package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;

/** How the data plane picks a member for each request. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.policy) || self.policy != 'ConsistentHash' || has(self.consistentHash)",
    message = "policy ConsistentHash needs consistentHash: a header, cookie or sourceIP to hash",
    fieldPath = ".consistentHash",
    reason = "FieldValueRequired")
public class Routing {
  @JsonPropertyDescription(
      "RoundRobin: smooth weighted round-robin, deterministic. Adaptive: power of two choices"
          + " drawn by weight, preferring the member with the lower latency x (in-flight + 1)."
          + " ConsistentHash: the same key (see consistentHash) goes to the same member on every"
          + " data plane.")
  @Default("RoundRobin")
  public RoutingPolicy policy = RoutingPolicy.RoundRobin;

  @JsonPropertyDescription(
      "The key of the ConsistentHash policy (exactly one of header, cookie, sourceIP) and the"
          + " algorithm; required with that policy, ignored by the others.")
  public ConsistentHash consistentHash;

  @JsonPropertyDescription("Health and weight parameters of the Adaptive policy.")
  @Default("{}")
  public AdaptiveRouting adaptive = new AdaptiveRouting();

  @JsonPropertyDescription("Passive outlier detection on the data plane.")
  @Default("{}")
  public OutlierDetection outlierDetection = new OutlierDetection();

  @JsonPropertyDescription("Retries on the data plane.")
  @Default("{}")
  public Retry retry = new Retry();

  @JsonPropertyDescription(
      "Ramp up the weight of members that join a pool which already has routable members"
          + " (scale-up, rollout, a new Lease or static endpoint), for both policies; unset: off.")
  public SlowStart slowStart;

  @JsonPropertyDescription(
      "When fewer than this percentage of the registered members are routable, the data plane"
          + " routes to all registered members (not draining) instead of answering 503; 0: off.")
  @Default("0")
  @Min(0)
  @Max(100)
  public Integer panicThresholdPercent = 0;

  @JsonPropertyDescription("How long the data plane waits for this pool's members.")
  public Timeouts timeouts;

  @JsonPropertyDescription(
      "What the members may safely receive twice (HTTP methods and gRPC methods), for retries"
          + " and hedges alike. Default: GET, HEAD and OPTIONS only; no gRPC method.")
  public Idempotent idempotent;

  @JsonPropertyDescription(
      "Hedged requests: idempotent requests without a body get a second try on another member"
          + " when the first has not answered within a delay; the first answer wins. Unset: off.")
  public Hedging hedging;

  @JsonPropertyDescription(
      "At most this many requests in flight on one member from one data plane; when every"
          + " member is full, requests wait in the queue. Unset or 0: no limit.")
  @Min(0)
  @Max(1_000_000)
  public Integer maxRequestsPerMember;

  @JsonPropertyDescription(
      "Where requests wait for a free member when maxRequestsPerMember is reached. Unset: they"
          + " get 503 at once.")
  public RequestQueue queue;
}
