package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;

/**
 * Active probing: success is an expected answer within the timeout (an HTTP status of
 * expectedStatuses, a gRPC SERVING, an established TCP connection), anything else is a failure.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "self.timeoutMillis < self.intervalMillis",
    message = "timeoutMillis must be below intervalMillis, or probes of one member would overlap",
    fieldPath = ".timeoutMillis")
@ValidationRule(
    value = "!has(self.grpcService) || (has(self.type) && self.type == 'GRPC')",
    message = "grpcService is only used by type GRPC",
    fieldPath = ".grpcService",
    reason = "FieldValueForbidden")
@ValidationRule(
    value = "!has(self.expectedStatuses) || !has(self.type) || self.type == 'HTTP'",
    message = "expectedStatuses is only used by type HTTP",
    fieldPath = ".expectedStatuses",
    reason = "FieldValueForbidden")
@ValidationRule(
    value = "!has(self.host) || !has(self.type) || self.type != 'TCP'",
    message = "host is sent by HTTP and GRPC checks only; a TCP check sends nothing",
    fieldPath = ".host",
    reason = "FieldValueForbidden")
@ValidationRule(
    value = "!has(self.startupGraceMillis) || self.startupGraceMillis >= self.intervalMillis",
    message =
        "startupGraceMillis must be at least intervalMillis, or a new member would be judged"
            + " before its first probe",
    fieldPath = ".startupGraceMillis")
public class HealthCheck {
  public static final String STATUS_RANGE = "^[1-5][0-9][0-9](-[1-5][0-9][0-9])?$";

  @JsonPropertyDescription(
      "Probe members actively. When false, only passive signals (lease, data-plane outlier"
          + " detection) decide.")
  @Default("true")
  public Boolean enabled = true;

  @JsonPropertyDescription(
      "HTTP: a GET of path, passing on one of expectedStatuses. GRPC: grpc.health.v1.Health/Check"
          + " over HTTP/2 (h2c, or h2 when appProtocol uses TLS), passing on SERVING only. TCP: a"
          + " connect, passing when it is established within the timeout.")
  @Default("HTTP")
  public HealthCheckType type = HealthCheckType.HTTP;

  @JsonPropertyDescription("HTTP path probed with GET on every member (type HTTP).")
  @Default("/healthz")
  @Pattern("^/[^\\s]*$")
  public String path = "/healthz";

  @JsonPropertyDescription("Milliseconds between two probes of the same member.")
  @Default("1000")
  @Min(50)
  @Max(300_000)
  public Integer intervalMillis = 1000;

  @JsonPropertyDescription("Milliseconds a probe may take before it counts as a failure.")
  @Default("500")
  @Min(10)
  @Max(60_000)
  public Integer timeoutMillis = 500;

  @JsonPropertyDescription(
      "Consecutive failed probes that make a member Unhealthy (the adaptive policy uses"
          + " routing.adaptive.ejectAfterFailures instead).")
  @Default("3")
  @Min(1)
  @Max(100)
  public Integer unhealthyThreshold = 3;

  @JsonPropertyDescription(
      "Consecutive passing probes that make a new (Pending) member Healthy, and that bring an"
          + " Unhealthy member back (through Degraded).")
  @Default("1")
  @Min(1)
  @Max(100)
  public Integer healthyThreshold = 1;

  @JsonPropertyDescription(
      "Service name asked of grpc.health.v1.Health/Check (type GRPC). Empty or absent: the"
          + " health of the whole server.")
  @Size(max = 253)
  public String grpcService;

  @JsonPropertyDescription(
      "Port probed instead of the member's traffic port, for members that answer health on a"
          + " management port.")
  @Min(1)
  @Max(65535)
  public Integer port;

  @JsonPropertyDescription(
      "Host header (HTTP/1.1) or :authority (HTTP/2) of every probe, for members that route by"
          + " name. Default: the member's host and port.")
  @Size(max = 259)
  @Pattern("^[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?(:[0-9]{1,5})?$")
  public String host;

  @JsonPropertyDescription(
      "HTTP statuses that pass (type HTTP): single codes or inclusive ranges such as"
          + " [\"200-399\"]. Default: any 2xx.")
  @Size(min = 1, max = 16)
  @ValidationRule(
      value = "self.all(r, size(r) == 3 || r.substring(0, 3) <= r.substring(4))",
      message = "a status range must not end below its start")
  public List<@Pattern(STATUS_RANGE) @Size(max = 7) String> expectedStatuses;

  @JsonPropertyDescription(
      "Milliseconds a new member may stay Pending (not routable, no Warning Events) before it is"
          + " Unhealthy for never having passed its health check; unset: 10 x intervalMillis.")
  @Min(50)
  @Max(3_600_000)
  public Integer startupGraceMillis;

  @JsonPropertyDescription(
      "Recoveries (a change of state toward better) a member may make in any rolling minute;"
          + " beyond that it stays in its worse state, \"held for flapping\", so it changes state"
          + " at most 2 x this + 2 times a minute. Changes toward worse are never held. Default 3.")
  @Default("3")
  @Min(1)
  @Max(1000)
  public Integer maxRecoveriesPerMinute = 3;
}
