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
// timeoutMillis has no schema default: its default follows intervalMillis (see below), so a short
// interval alone is valid. intervalMillis always has a value here (schema default 1000).
@ValidationRule(
    value = "!has(self.timeoutMillis) || self.timeoutMillis < self.intervalMillis",
    message =
        "healthCheck.timeoutMillis must be below healthCheck.intervalMillis (default 1000), or"
            + " probes of one member would overlap; leave timeoutMillis unset for its default,"
            + " the smaller of 500 and half of intervalMillis",
    fieldPath = ".timeoutMillis")
@ValidationRule(
    value = "!has(self.grpcService) || (has(self.type) && self.type == 'GRPC')",
    message = "grpcService is only used by type GRPC (healthCheck.type defaults to HTTP)",
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
        "healthCheck.startupGraceMillis must be at least healthCheck.intervalMillis (default"
            + " 1000), or a new member would be judged before its first probe; leave it unset for"
            + " its default, 10 x intervalMillis",
    fieldPath = ".startupGraceMillis")
public class HealthCheck {
  public static final String STATUS_RANGE = "^[1-5][0-9][0-9](-[1-5][0-9][0-9])?$";

  /** The probe timeout when intervalMillis is long enough: {@link #timeoutMillisOrDefault}. */
  public static final int DEFAULT_TIMEOUT_MILLIS = 500;

  /** Without startupGraceMillis, a new member has this many intervals to pass its first probe. */
  public static final int STARTUP_GRACE_INTERVALS = 10;

  @JsonPropertyDescription(
      "Probe members actively. When false, only passive signals (lease, data-plane outlier"
          + " detection) decide. Default true.")
  @Default("true")
  public Boolean enabled = true;

  @JsonPropertyDescription(
      "HTTP: a GET of path, passing on one of expectedStatuses. GRPC: grpc.health.v1.Health/Check"
          + " over HTTP/2 (h2c, or h2 when appProtocol uses TLS), passing on SERVING only. TCP: a"
          + " connect, passing when it is established within the timeout. Default HTTP.")
  @Default("HTTP")
  public HealthCheckType type = HealthCheckType.HTTP;

  @JsonPropertyDescription(
      "HTTP path probed with GET on every member (type HTTP). Default /healthz.")
  @Default("/healthz")
  @Pattern("^/[^\\s]*$")
  public String path = "/healthz";

  @JsonPropertyDescription(
      "Time between two probes of the same member. Default 1000. Milliseconds.")
  @Default("1000")
  @Min(50)
  @Max(300_000)
  public Integer intervalMillis = 1000;

  @JsonPropertyDescription(
      "Time a probe may take before it counts as a failure; must be below intervalMillis."
          + " Default: the smaller of 500 and half of intervalMillis (500 with the default"
          + " interval), left unset in the stored pool because it follows intervalMillis."
          + " Milliseconds.")
  @Min(10)
  @Max(60_000)
  public Integer timeoutMillis;

  @JsonPropertyDescription(
      "Consecutive failed probes that make a member Unhealthy (the adaptive policy uses"
          + " routing.adaptive.ejectAfterFailures instead). Default 3. A count of probes.")
  @Default("3")
  @Min(1)
  @Max(100)
  public Integer unhealthyThreshold = 3;

  @JsonPropertyDescription(
      "Consecutive passing probes that make a new (Pending) member Healthy, and that bring an"
          + " Unhealthy member back (through Degraded). Default 1. A count of probes.")
  @Default("1")
  @Min(1)
  @Max(100)
  public Integer healthyThreshold = 1;

  @JsonPropertyDescription(
      "Service name asked of grpc.health.v1.Health/Check (type GRPC). Default: none (empty or"
          + " absent asks for the health of the whole server).")
  @Size(max = 253)
  public String grpcService;

  @JsonPropertyDescription(
      "Port probed instead of the member's traffic port, for members that answer health on a"
          + " management port. Default: the member's own port. A TCP port number.")
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
          + " [\"200-399\"]. Default: any 2xx (200-299), left unset in the stored pool because"
          + " only type HTTP may set it. HTTP status codes.")
  @Size(min = 1, max = 16)
  @ValidationRule(
      value = "self.all(r, size(r) == 3 || r.substring(0, 3) <= r.substring(4))",
      message = "a status range must not end below its start")
  public List<@Pattern(STATUS_RANGE) @Size(max = 7) String> expectedStatuses;

  @JsonPropertyDescription(
      "Time a new member may stay Pending (not routable, no Warning Events) before it is"
          + " Unhealthy for never having passed its health check; at least intervalMillis."
          + " Default: 10 x intervalMillis (10000 with the default interval), left unset in the"
          + " stored pool because it follows intervalMillis. Milliseconds.")
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

  @JsonPropertyDescription(
      "Saturation as a health signal: a member whose probe answers report (ORCA header"
          + " endpoint-load-metrics or endpoint-load-metrics-bin) a utilization at or above this,"
          + " in 2 fresh reports in a row, is Degraded (\"saturated: utilization 0.95 >= 0.90\")"
          + " and leaves Degraded like from the latency and error signals, after"
          + " routing.adaptive.recoverAfterMillis of good results. Utilization is"
          + " application_utilization when above 0, else cpu_utilization. Default: unset,"
          + " saturation never degrades. A fraction of the member's capacity, above 0 and at"
          + " most 1.")
  @Min(value = 0.0, inclusive = false)
  @Max(1.0)
  @ValidationRule(
      value = "self > 0.0 && self <= 1.0",
      message =
          "healthCheck.degradedUtilization is a fraction of capacity: above 0 and at most 1"
              + " (e.g. 0.9); leave it unset for saturation never to degrade a member")
  public Double degradedUtilization;

  /**
   * The probe timeout in force: {@link #timeoutMillis}, else the smaller of {@value
   * #DEFAULT_TIMEOUT_MILLIS} and half of the interval in force, so that a short interval alone is
   * valid. It is 500 for every interval of 1000 and more. Pools stored while the schema defaulted
   * the timeout to a fixed 500 have that 500 written in, and keep it.
   */
  public int timeoutMillisOrDefault() {
    return timeoutMillis != null ? timeoutMillis : defaultTimeoutMillis(intervalMillisOrDefault());
  }

  /** The default probe timeout for an interval: min(500, interval / 2). */
  public static int defaultTimeoutMillis(int intervalMillis) {
    return Math.max(1, Math.min(DEFAULT_TIMEOUT_MILLIS, intervalMillis / 2));
  }

  /** The probe interval in force: {@link #intervalMillis}, else the default 1000. */
  public int intervalMillisOrDefault() {
    return intervalMillis != null ? intervalMillis : 1000;
  }
}
