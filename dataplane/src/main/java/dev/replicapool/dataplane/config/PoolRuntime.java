package dev.replicapool.dataplane.config;

import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.dataplane.policy.RequestPolicy;
import dev.replicapool.dataplane.policy.RetryPolicy;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.PoolRouter;
import dev.replicapool.dataplane.tls.TlsMaterials;
import java.util.List;

/**
 * One pool as the data plane serves it: the snapshot it came from, its router, the hosts and port
 * it answers on, its TLS material (null without TLS), its retry settings, how it speaks TLS to its
 * members (null for clear-text members) and what its requests are held to (timeouts, hedging,
 * budget, limits). Immutable apart from the router's runtime state.
 */
public record PoolRuntime(
    PoolSnapshot snapshot,
    PoolRouter router,
    List<String> hosts,
    Integer port,
    TlsMaterials.Loaded tls,
    RetryPolicy retry,
    UpstreamTls upstreamTls,
    RequestPolicy requests) {

  public String name() {
    return snapshot.pool();
  }

  public long version() {
    return snapshot.version();
  }

  /**
   * What a client or the log is told about member {@code e}: "member ADDRESS of pool NAME what".
   */
  public String aboutMember(Endpoint e, String what) {
    return "member " + e.address() + " of pool " + name() + " " + what;
  }

  /** What the members speak; {@code http} when the snapshot does not say. */
  public String appProtocol() {
    return snapshot.appProtocol() == null ? "http" : snapshot.appProtocol();
  }

  /** Whether the pool takes only WebSocket upgrades ({@code kubernetes.io/ws} or {@code wss}). */
  public boolean websocketOnly() {
    String p = appProtocol();
    return p.equals("kubernetes.io/ws") || p.equals("kubernetes.io/wss");
  }

  /** Whether the members speak HTTP/2 only (h2c). */
  public boolean http2Members() {
    return appProtocol().equals("kubernetes.io/h2c");
  }

  /**
   * Whether the members' load reports go on to clients; else they are taken out of the answer (read
   * either way).
   */
  public boolean forwardsLoadReports() {
    return Boolean.TRUE.equals(snapshot.forwardLoadReports());
  }

  /** Whether the members speak TLS ({@code https}, {@code kubernetes.io/wss}). */
  public boolean tlsMembers() {
    return upstreamTls != null;
  }
}
