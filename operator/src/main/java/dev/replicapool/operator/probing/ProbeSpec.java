package dev.replicapool.operator.probing;

import dev.replicapool.api.v1alpha1.AppProtocol;
import dev.replicapool.api.v1alpha1.HealthCheck;
import dev.replicapool.api.v1alpha1.HealthCheckType;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.wire.UpstreamTlsMaterial;
import java.util.ArrayList;
import java.util.List;

/**
 * How the members of one pool are checked: which checker, on which port, with which wire protocol
 * and TLS material. Plain data, compared by value: a reconcile re-tracks members only when it
 * changed.
 *
 * @param path request path of HTTP checks
 * @param port probed instead of the member's traffic port; null: the member's port
 * @param authority Host header or :authority sent; null: the member's host and port
 * @param grpcService service asked of grpc.health.v1.Health/Check; "" is the whole server
 * @param expectedStatuses HTTP statuses that pass
 * @param tls material of TLS transports, null for clear-text ones
 */
public record ProbeSpec(
    HealthCheckType type,
    String path,
    Integer port,
    String authority,
    String grpcService,
    List<StatusRange> expectedStatuses,
    Transport transport,
    UpstreamTlsMaterial tls) {

  /** The wire protocol a check speaks to a member. */
  public enum Transport {
    /** HTTP/1.1 in clear text. */
    H1,
    /** HTTP/2 with prior knowledge in clear text. */
    H2C,
    /** TLS, HTTP/2 or HTTP/1.1 as ALPN settles. */
    TLS_ALPN,
    /** TLS, HTTP/1.1 only (WebSocket members). */
    TLS_H1,
    /** TLS, HTTP/2 only (gRPC over TLS). */
    TLS_H2;

    public boolean tls() {
      return this == TLS_ALPN || this == TLS_H1 || this == TLS_H2;
    }
  }

  /** An inclusive range of HTTP statuses. */
  public record StatusRange(int low, int high) {
    public boolean contains(int status) {
      return status >= low && status <= high;
    }

    /** "200" or "200-399". */
    public static StatusRange parse(String s) {
      int dash = s.indexOf('-');
      if (dash < 0) {
        int code = Integer.parseInt(s.trim());
        return new StatusRange(code, code);
      }
      return new StatusRange(
          Integer.parseInt(s.substring(0, dash).trim()),
          Integer.parseInt(s.substring(dash + 1).trim()));
    }
  }

  public static final List<StatusRange> ANY_2XX = List.of(new StatusRange(200, 299));

  public ProbeSpec {
    type = type == null ? HealthCheckType.HTTP : type;
    path = path == null ? "/" : path;
    grpcService = grpcService == null ? "" : grpcService;
    expectedStatuses =
        expectedStatuses == null || expectedStatuses.isEmpty()
            ? ANY_2XX
            : List.copyOf(expectedStatuses);
    transport = transport == null ? Transport.H1 : transport;
    if (!transport.tls()) {
      tls = null;
    }
  }

  /** A GET of {@code path} over HTTP/1.1 in clear text, passing on a 2xx. */
  public static ProbeSpec http(String path) {
    return new ProbeSpec(HealthCheckType.HTTP, path, null, null, "", ANY_2XX, Transport.H1, null);
  }

  /** How a pool's spec asks its members to be checked, with its resolved upstream TLS material. */
  public static ProbeSpec from(ReplicaPoolSpec spec, UpstreamTlsMaterial upstreamTls) {
    HealthCheck hc = spec.healthCheck == null ? new HealthCheck() : spec.healthCheck;
    HealthCheckType type = hc.type == null ? HealthCheckType.HTTP : hc.type;
    AppProtocol protocol = spec.appProtocol == null ? AppProtocol.HTTP : spec.appProtocol;
    List<StatusRange> statuses = new ArrayList<>();
    if (hc.expectedStatuses != null) {
      hc.expectedStatuses.forEach(s -> statuses.add(StatusRange.parse(s)));
    }
    return new ProbeSpec(
        type,
        hc.path,
        hc.port,
        hc.host,
        hc.grpcService,
        statuses,
        transport(protocol, type),
        upstreamTls);
  }

  /** gRPC needs HTTP/2; HTTP checks speak what the members speak. */
  static Transport transport(AppProtocol protocol, HealthCheckType type) {
    if (type == HealthCheckType.GRPC) {
      return protocol.tls() ? Transport.TLS_H2 : Transport.H2C;
    }
    return switch (protocol) {
      case HTTP, WS -> Transport.H1;
      case H2C -> Transport.H2C;
      case HTTPS -> Transport.TLS_ALPN;
      case WSS -> Transport.TLS_H1;
    };
  }

  public boolean passes(int status) {
    for (StatusRange r : expectedStatuses) {
      if (r.contains(status)) {
        return true;
      }
    }
    return false;
  }
}
