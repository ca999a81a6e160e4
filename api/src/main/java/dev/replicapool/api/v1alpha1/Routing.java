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
          + " data plane. Default RoundRobin.")
  @Default("RoundRobin")
  public RoutingPolicy policy = RoutingPolicy.RoundRobin;

  @JsonPropertyDescription(
      "The key of the ConsistentHash policy (exactly one of header, cookie, sourceIP) and the"
          + " algorithm; required with that policy, ignored by the others. Default: none.")
  public ConsistentHash consistentHash;

  @JsonPropertyDescription(
      "Health and weight parameters of the Adaptive policy (its thresholds also judge the"
          + " members of the other policies in status). Default: each field's own default.")
  @Default("{}")
  public AdaptiveRouting adaptive = new AdaptiveRouting();

  @JsonPropertyDescription(
      "Passive outlier detection on the data plane. Default: each field's own default.")
  @Default("{}")
  public OutlierDetection outlierDetection = new OutlierDetection();

  @JsonPropertyDescription("Retries on the data plane. Default: each field's own default.")
  @Default("{}")
  public Retry retry = new Retry();

  @JsonPropertyDescription(
      "Ramp up the weight of members that join a pool which already has routable members"
          + " (scale-up, rollout, a new Lease or static endpoint), for every policy. Default: none"
          + " (off).")
  public SlowStart slowStart;

  @JsonPropertyDescription(
      "When fewer than this percentage of the registered members are routable, the data plane"
          + " routes to all registered members (not draining) instead of answering 503; 0: off."
          + " Default 0. Percent.")
  @Default("0")
  @Min(0)
  @Max(100)
  public Integer panicThresholdPercent = 0;

  @JsonPropertyDescription(
      "How long the data plane waits for this pool's members. Default: each field's own"
          + " default (no request or per-try limit).")
  @Default("{}")
  public Timeouts timeouts = new Timeouts();

  @JsonPropertyDescription(
      "What the members may safely receive twice (HTTP methods and gRPC methods), for retries"
          + " and hedges alike. Default: GET, HEAD and OPTIONS only; no gRPC method.")
  public Idempotent idempotent;

  @JsonPropertyDescription(
      "Hedged requests: idempotent requests get a second try on another member when the first"
          + " has not answered within a delay after the whole request came (a body is kept up to"
          + " 64 KiB and sent whole; a larger one is not hedged); the first answer wins. Default:"
          + " none (off).")
  public Hedging hedging;

  @JsonPropertyDescription(
      "At most this many requests in flight on one member from one data plane; when every"
          + " member is full, requests wait in the queue. 0: no limit. Default 0. A count of"
          + " requests.")
  @Default("0")
  @Min(0)
  @Max(1_000_000)
  public Integer maxRequestsPerMember = 0;

  @JsonPropertyDescription(
      "Where requests wait for a free member when maxRequestsPerMember is reached; queue: {}"
          + " gives a queue of 1024 requests waiting up to 1000 ms. Default: none (requests over"
          + " the limit get 503 at once).")
  public RequestQueue queue;

  @JsonPropertyDescription(
      "Pass the members' load reports (ORCA's endpoint-load-metrics and"
          + " endpoint-load-metrics-bin, in headers and gRPC trailers) on to clients. The data"
          + " plane reads them either way (Adaptive weighs them); unless forwarded they are removed,"
          + " as they describe the members to the balancer, not the answer to the client. Default"
          + " false.")
  @Default("false")
  public Boolean forwardLoadReports = false;
}
