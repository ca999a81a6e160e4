package dev.replicapool.api.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.replicapool.api.v1alpha1.AccessLog;
import dev.replicapool.api.v1alpha1.AdaptiveRouting;
import dev.replicapool.api.v1alpha1.ConsistentHash;
import dev.replicapool.api.v1alpha1.Hedging;
import dev.replicapool.api.v1alpha1.Idempotent;
import dev.replicapool.api.v1alpha1.OutlierDetection;
import dev.replicapool.api.v1alpha1.RequestQueue;
import dev.replicapool.api.v1alpha1.Retry;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.v1alpha1.SlowStart;
import dev.replicapool.api.v1alpha1.Timeouts;
import io.soabase.recordbuilder.core.RecordBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Everything a data plane needs to route one pool. Always complete: a data plane never merges two
 * snapshots of the same pool. Components left out of a {@link PoolSnapshotBuilder} are null: off,
 * or the data plane's default.
 *
 * @param pool "namespace/name"
 * @param version grows with every change of this pool; a data plane ignores older versions
 * @param appProtocol what the members speak: {@code http} (null: the default, HTTP/1.1), {@code
 *     kubernetes.io/h2c}, {@code https}, {@code kubernetes.io/ws}, {@code kubernetes.io/wss}
 * @param upstreamTls TLS to the members (with {@code https} and {@code kubernetes.io/wss}); null
 *     otherwise
 * @param slowStart ramp of joining members' weights; null: off
 * @param panicThresholdPercent below this share of registered members routable, route to all of
 *     them; null or 0: off
 * @param timeouts per-pool timeouts; null: the data plane's defaults
 * @param hedging hedged requests; null: off
 * @param maxRequestsPerMember in-flight limit per member and data plane; null or 0: none
 * @param queue where requests wait for a member under the limit; null: no waiting
 * @param consistentHash the key and table of the ConsistentHash policy; null otherwise
 * @param idempotent what the members may receive twice, for retries and hedges; null: GET, HEAD and
 *     OPTIONS only
 * @param accessLog which requests the data plane's access log takes; null: none
 * @param forwardLoadReports pass the members' load reports on to clients; null or false: removed
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@RecordBuilder
public record PoolSnapshot(
    String pool,
    long version,
    RoutingPolicy policy,
    AdaptiveRouting adaptive,
    OutlierDetection outlierDetection,
    Retry retry,
    List<String> hosts,
    Integer port,
    TlsMaterial tls,
    List<MemberSnapshot> members,
    String appProtocol,
    UpstreamTlsMaterial upstreamTls,
    SlowStart slowStart,
    Integer panicThresholdPercent,
    Timeouts timeouts,
    Hedging hedging,
    Integer maxRequestsPerMember,
    RequestQueue queue,
    ConsistentHash consistentHash,
    Idempotent idempotent,
    AccessLog accessLog,
    Boolean forwardLoadReports) {

  private static final Pattern POOL_NAME = Pattern.compile("[^/\\s]+/[^/\\s]+");

  /** What is wrong with this snapshot, empty when it can be applied. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (pool == null || !POOL_NAME.matcher(pool).matches()) {
      problems.add("pool must be namespace/name, got " + pool);
    }
    if (version <= 0) {
      problems.add("version must be positive, got " + version);
    }
    if (policy == null) {
      problems.add("policy is missing");
    }
    if (port != null && (port < 1 || port > 65535)) {
      problems.add("port out of range: " + port);
    }
    if (tls != null && (blank(tls.certificatePem()) || blank(tls.privateKeyPem()))) {
      problems.add("tls needs both a certificate and a private key");
    }
    if (members == null) {
      problems.add("members is missing");
      return problems;
    }
    for (MemberSnapshot m : members) {
      if (m == null || blank(m.host())) {
        problems.add("member without host");
      } else if (m.port() < 1 || m.port() > 65535) {
        problems.add(m.address() + ": port out of range");
      } else if (!(m.weight() >= 0.0 && m.weight() <= 1.0)) {
        problems.add(m.address() + ": weight must be within 0..1, got " + m.weight());
      } else if (m.state() == null) {
        problems.add(m.address() + ": state is missing");
      }
    }
    return problems;
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
