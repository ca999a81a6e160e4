package dev.replicapool.dataplane;

import dev.replicapool.api.v1alpha1.OutlierDetection;
import dev.replicapool.api.v1alpha1.Retry;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
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
  private dev.replicapool.api.v1alpha1.ConsistentHash consistentHash;

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
    Retry r = new Retry();
    r.retryIdempotentOn5xx = true;
    this.retry = r;
    return this;
  }

  SnapshotBuilder outlier(int consecutiveFailures, int baseMillis) {
    OutlierDetection o = new OutlierDetection();
    o.consecutiveFailures = consecutiveFailures;
    o.baseEjectionMillis = baseMillis;
    this.outlier = o;
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
        consistentHash);
  }
}
