package dev.replicapool.dataplane;

import dev.replicapool.api.v1alpha1.AccessLog;
import dev.replicapool.api.v1alpha1.Hedging;
import dev.replicapool.api.v1alpha1.Idempotent;
import dev.replicapool.api.v1alpha1.OutlierDetection;
import dev.replicapool.api.v1alpha1.RequestQueue;
import dev.replicapool.api.v1alpha1.Retry;
import dev.replicapool.api.v1alpha1.RetryBudget;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.v1alpha1.Timeouts;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.TlsMaterial;
import java.util.ArrayList;
import java.util.List;

/** Test snapshots, built step by step. */
final class SnapshotBuilder {
  private final String pool;
  private RoutingPolicy policy = RoutingPolicy.RoundRobin;
  private List<String> hosts = List.of();
  private Integer port;
  private TlsMaterial tls;
  private Retry retry;
  private OutlierDetection outlier;
  private final List<MemberSnapshot> members = new ArrayList<>();
  private String appProtocol;
  private dev.replicapool.api.wire.UpstreamTlsMaterial upstreamTls;
  private Timeouts timeouts;
  private Hedging hedging;
  private Integer maxRequestsPerMember;
  private RequestQueue queue;
  private dev.replicapool.api.v1alpha1.ConsistentHash consistentHash;
  private Idempotent idempotent;
  private AccessLog accessLog;
  private Boolean forwardLoadReports;

  private SnapshotBuilder(String pool) {
    this.pool = pool;
  }

  static SnapshotBuilder pool(String pool) {
    return new SnapshotBuilder(pool);
  }

  SnapshotBuilder hosts(String... hosts) {
    this.hosts = List.of(hosts);
    return this;
  }

  SnapshotBuilder port(int port) {
    this.port = port;
    return this;
  }

  SnapshotBuilder tls(TlsMaterial tls) {
    this.tls = tls;
    return this;
  }

  SnapshotBuilder policy(RoutingPolicy policy) {
    this.policy = policy;
    return this;
  }

  SnapshotBuilder retryOn5xx() {
    if (retry == null) {
      retry = new Retry();
    }
    retry.retryIdempotentOn5xx = true;
    return this;
  }

  SnapshotBuilder outlier(int consecutiveFailures, int baseMillis) {
    OutlierDetection o = new OutlierDetection();
    o.consecutiveFailures = consecutiveFailures;
    o.baseEjectionMillis = baseMillis;
    this.outlier = o;
    return this;
  }

  /** Per-pool timeouts in milliseconds; null leaves one unset. */
  SnapshotBuilder timeouts(Long requestMillis, Long perTryMillis, Long idleMillis) {
    Timeouts t = new Timeouts();
    t.requestMillis = requestMillis;
    t.perTryMillis = perTryMillis;
    t.idleMillis = idleMillis;
    this.timeouts = t;
    return this;
  }

  SnapshotBuilder hedgeAfterMillis(long delayMillis, int maxHedges) {
    Hedging h = new Hedging();
    h.delayMillis = delayMillis;
    h.maxHedges = maxHedges;
    this.hedging = h;
    return this;
  }

  SnapshotBuilder hedgeAtPercentile(double percentile) {
    Hedging h = new Hedging();
    h.delayPercentile = percentile;
    this.hedging = h;
    return this;
  }

  SnapshotBuilder retryBudget(int percent, int minRetriesPerSecond) {
    if (retry == null) {
      retry = new Retry();
    }
    RetryBudget b = new RetryBudget();
    b.percent = percent;
    b.minRetriesPerSecond = minRetriesPerSecond;
    retry.budget = b;
    return this;
  }

  /** An in-flight limit per member; {@code maxPending} null: no queue. */
  SnapshotBuilder limit(int maxRequestsPerMember, Integer maxPending, long queueTimeoutMillis) {
    this.maxRequestsPerMember = maxRequestsPerMember;
    if (maxPending != null) {
      RequestQueue q = new RequestQueue();
      q.maxPending = maxPending;
      q.timeoutMillis = queueTimeoutMillis;
      this.queue = q;
    }
    return this;
  }

  SnapshotBuilder appProtocol(String appProtocol) {
    this.appProtocol = appProtocol;
    return this;
  }

  SnapshotBuilder upstreamTls(dev.replicapool.api.wire.UpstreamTlsMaterial upstreamTls) {
    this.upstreamTls = upstreamTls;
    return this;
  }

  SnapshotBuilder consistentHash(dev.replicapool.api.v1alpha1.ConsistentHash c) {
    this.policy = RoutingPolicy.ConsistentHash;
    this.consistentHash = c;
    return this;
  }

  /** What the members may receive twice: HTTP methods and gRPC method patterns. */
  SnapshotBuilder idempotent(List<String> methods, List<String> grpcMethods) {
    Idempotent i = new Idempotent();
    i.methods = methods;
    i.grpcMethods = grpcMethods;
    this.idempotent = i;
    return this;
  }

  /** Which requests the access log takes: on, the share sampled, errors only. */
  SnapshotBuilder accessLog(boolean enabled, double sampleRate, boolean errorsOnly) {
    AccessLog a = new AccessLog();
    a.enabled = enabled;
    a.sampleRate = sampleRate;
    a.errorsOnly = errorsOnly;
    this.accessLog = a;
    return this;
  }

  /** The members' load reports go on to clients. */
  SnapshotBuilder forwardLoadReports() {
    this.forwardLoadReports = true;
    return this;
  }

  SnapshotBuilder member(MemberSnapshot m) {
    members.add(m);
    return this;
  }

  SnapshotBuilder members(MemberSnapshot... ms) {
    members.addAll(List.of(ms));
    return this;
  }

  PoolSnapshot version(long version) {
    return new PoolSnapshot(
        pool,
        version,
        policy,
        null,
        outlier,
        retry,
        hosts,
        port,
        tls,
        List.copyOf(members),
        appProtocol,
        upstreamTls,
        null,
        null,
        timeouts,
        hedging,
        maxRequestsPerMember,
        queue,
        consistentHash,
        idempotent,
        accessLog,
        forwardLoadReports);
  }
}
