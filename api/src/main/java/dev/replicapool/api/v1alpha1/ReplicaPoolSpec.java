package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.replicapool.api.wire.ControlPlaneProtocol;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.ArrayList;
import java.util.List;

/** What the user asks for. Plain data: public fields keep the schema next to its Java type. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "has(self.selector) || (has(self.endpoints) && size(self.endpoints) > 0) ||"
            + " has(self.registration)",
    message = "at least one member source is required: selector, endpoints or registration",
    reason = "FieldValueRequired")
@ValidationRule(
    value = "!has(self.selector) || has(self.port)",
    message = "port is required when selector picks Pods as members",
    fieldPath = ".port",
    reason = "FieldValueRequired")
@ValidationRule(
    value = "!has(self.endpoints) || has(self.port) || self.endpoints.all(e, has(e.port))",
    message =
        "every static endpoint needs a port when spec.port is not set: an endpoint's port"
            + " defaults to spec.port",
    fieldPath = ".endpoints",
    reason = "FieldValueRequired")
// An endpoint's port defaults to spec.port, so {host: a} and {host: a, port: <spec.port>} are the
// same member; a missing port must not stop the rule (no such key).
@ValidationRule(
    value =
        "!has(self.endpoints) || self.endpoints.all(e, self.endpoints.exists_one(f, f.host =="
            + " e.host && (has(f.port) ? f.port : (has(self.port) ? self.port : 0)) =="
            + " (has(e.port) ? e.port : (has(self.port) ? self.port : 0))))",
    message =
        "endpoints must not repeat the same host and port (an endpoint without port has"
            + " spec.port)",
    fieldPath = ".endpoints",
    reason = "FieldValueInvalid")
@ValidationRule(
    value =
        "!has(self.upstreamTls) || (has(self.appProtocol) && self.appProtocol in ['https',"
            + " 'kubernetes.io/wss'])",
    message =
        "upstreamTls needs appProtocol https or kubernetes.io/wss: the others speak clear text"
            + " (spec.appProtocol defaults to http)",
    fieldPath = ".upstreamTls",
    reason = "FieldValueForbidden")
public class ReplicaPoolSpec {

  @JsonPropertyDescription(
      "Pods matching this selector are members while they have a podIP, are Ready and are not"
          + " terminating. A terminating Pod is drained: weight 0 until it is gone. Default: none (no"
          + " Pods are members).")
  public LabelSelector selector;

  @JsonPropertyDescription(
      "Static members, each a host (DNS name or IP) and an optional port (default spec.port)."
          + " Default: none.")
  @Size(max = 256)
  public List<StaticEndpoint> endpoints;

  @JsonPropertyDescription(
      "Members that register themselves by creating and renewing coordination.k8s.io/v1 Leases"
          + " labelled replicapool.dev/pool=<this pool's name>. Default: none (no self-registration).")
  public Registration registration;

  @JsonPropertyDescription(
      "Port of the members: the container port of selected Pods (required with selector), and"
          + " the default port of static endpoints. Default: none. A TCP port number.")
  @Min(1)
  @Max(65535)
  public Integer port;

  @JsonPropertyDescription(
      "What the members speak (the name Kubernetes Services and Gateway API use): http"
          + " (HTTP/1.1), kubernetes.io/h2c (HTTP/2 with prior knowledge, as gRPC servers in clear"
          + " text), https (TLS, HTTP/2 or HTTP/1.1 by ALPN), kubernetes.io/ws and"
          + " kubernetes.io/wss (WebSocket only, in clear text or over TLS). Default http.")
  @Default("http")
  public AppProtocol appProtocol = AppProtocol.HTTP;

  @JsonPropertyDescription(
      "TLS to the members, with appProtocol https or kubernetes.io/wss: the CA to trust, the"
          + " server name, a client certificate. Verification is on unless insecureSkipVerify."
          + " Default: none (the operator's and data plane's default trust, each member's host as"
          + " server name).")
  public UpstreamTls upstreamTls;

  @JsonPropertyDescription(
      "Which of this pool's requests the data planes write to their access log (docs/"
          + "OBSERVABILITY.md). Default: none (not logged unless a data plane logs every pool).")
  public AccessLog accessLog;

  @JsonPropertyDescription(
      "How requests reach this pool on the data plane. Default: none (the pool is reachable by"
          + " no host and no port).")
  public Route route;

  @JsonPropertyDescription(
      "Active health check of every member: HTTP, gRPC or TCP. Default: each field's own"
          + " default (HTTP GET /healthz every 1000 ms).")
  @Default("{}")
  public HealthCheck healthCheck = new HealthCheck();

  @JsonPropertyDescription(
      "How the data plane spreads requests over the members. Default: each field's own default"
          + " (RoundRobin).")
  @Default("{}")
  public Routing routing = new Routing();

  @JsonPropertyDescription(
      "Terminate TLS on the data plane with the certificate of this Secret (type"
          + " kubernetes.io/tls). Default: none (clear text).")
  public Tls tls;

  @JsonPropertyDescription(
      "Capacity planning inputs; when set, status.capacity and the CapacityAtRisk condition show"
          + " whether the pool survives the loss of one member. Default: none (no capacity status).")
  public Capacity capacity;

  @JsonPropertyDescription(
      "Data-plane groups whose data planes serve this pool (a data plane's --group). Only they"
          + " receive the pool's snapshot and its TLS key; data planes of other groups never see"
          + " the pool. DNS labels, 1 to 16 of them. Default [\"default\"].")
  @Default("[\"default\"]")
  @Size(min = 1, max = 16)
  @ValidationRule(
      value = "self.all(g, self.exists_one(h, h == g))",
      message = "dataPlaneGroups must not repeat a group",
      reason = "FieldValueInvalid")
  public List<
          @Size(max = ControlPlaneProtocol.MAX_GROUP_CHARS)
          @Pattern(ControlPlaneProtocol.GROUP_PATTERN) String>
      dataPlaneGroups;

  /** The data-plane groups that serve the pool: {@link #dataPlaneGroups}, else the default one. */
  public List<String> dataPlaneGroupsOrDefault() {
    return dataPlaneGroups == null || dataPlaneGroups.isEmpty()
        ? List.of(ControlPlaneProtocol.DEFAULT_GROUP)
        : dataPlaneGroups;
  }

  /** Convenience for code that builds specs. */
  public List<StaticEndpoint> endpointsOrEmpty() {
    return endpoints == null ? new ArrayList<>() : endpoints;
  }
}
