package dev.replicapool.operator.push;

import dev.replicapool.api.v1alpha1.AppProtocol;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.TlsMaterial;
import dev.replicapool.api.wire.UpstreamTlsMaterial;
import dev.replicapool.controlplane.ControlPlaneServer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Turns a pool's members into a versioned {@link PoolSnapshot} and sends it to the data planes of
 * the pool's data-plane groups, only when something a data plane acts on changed or the groups
 * changed (a new version then moves the pool off the data planes that no longer serve it). Versions
 * come from the server, which keeps them growing across operator restarts. Skipping an unchanged
 * snapshot never strands a rejected one: the server sends a data plane the latest version it
 * rejected again until it applies ({@code NackRetry} in the control plane).
 */
public final class SnapshotPublisher {
  private final ControlPlaneServer server;
  private final Map<String, PoolSnapshot> lastSent = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> lastGroups = new ConcurrentHashMap<>();
  private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
  private final PushSpans spans;

  /** Without traces. */
  public SnapshotPublisher(ControlPlaneServer server) {
    this(server, new PushSpans(io.opentelemetry.api.OpenTelemetry.noop().getTracer("none")));
  }

  /** Each snapshot sent is a span in {@code spans} until it converged. */
  public SnapshotPublisher(ControlPlaneServer server, PushSpans spans) {
    this.server = server;
    this.spans = spans;
  }

  /**
   * {@link #publish(String, ReplicaPoolSpec, List, TlsMaterial, UpstreamTlsMaterial, long)} now.
   */
  public long publish(
      String pool,
      ReplicaPoolSpec spec,
      List<MemberSnapshot> members,
      TlsMaterial tls,
      UpstreamTlsMaterial upstreamTls) {
    return publish(pool, spec, members, tls, upstreamTls, System.nanoTime());
  }

  /**
   * Sends the pool's snapshot if it differs from the last one sent; returns its version.
   *
   * @param triggerNanos when the operator saw the change that led here ({@link System#nanoTime()}):
   *     a probe result, a Pod or Lease event, the start of the reconcile; the data planes' ACKs
   *     measure the version's convergence time from it ({@code replicapool_push_convergence})
   */
  public synchronized long publish(
      String pool,
      ReplicaPoolSpec spec,
      List<MemberSnapshot> members,
      TlsMaterial tls,
      UpstreamTlsMaterial upstreamTls,
      long triggerNanos) {
    PoolSnapshot previous = lastSent.get(pool);
    PoolSnapshot candidate =
        build(pool, previous == null ? 0 : previous.version(), spec, members, tls, upstreamTls);
    Set<String> groups = Set.copyOf(spec.dataPlaneGroupsOrDefault());
    if (previous != null
        && sameContent(previous, candidate)
        && groups.equals(lastGroups.get(pool))) {
      return previous.version();
    }
    PoolSnapshot snapshot = build(pool, server.nextVersion(pool), spec, members, tls, upstreamTls);
    lastSent.put(pool, snapshot);
    lastGroups.put(pool, groups);
    spans.sent(snapshot, groups, triggerNanos); // first: the last ACK may come at once
    server.publish(snapshot, groups, triggerNanos);
    listeners.forEach(l -> l.accept(pool));
    return snapshot.version();
  }

  /** Told the pool ("namespace/name") of every snapshot sent. Must not block. */
  public void onPublished(Consumer<String> listener) {
    listeners.add(listener);
  }

  /** The version last sent for a pool, 0 when none. */
  public long version(String pool) {
    PoolSnapshot s = lastSent.get(pool);
    return s == null ? 0 : s.version();
  }

  public synchronized void remove(String pool) {
    lastGroups.remove(pool);
    if (lastSent.remove(pool) != null) {
      server.remove(pool);
    }
    spans.removed(pool);
  }

  /**
   * The snapshot of a pool. appProtocol is the spec's value ({@code http} when the spec says
   * nothing); upstreamTls is the material of a TLS protocol (https, kubernetes.io/wss), null for
   * the clear-text ones whatever the spec holds.
   */
  static PoolSnapshot build(
      String pool,
      long version,
      ReplicaPoolSpec spec,
      List<MemberSnapshot> members,
      TlsMaterial tls,
      UpstreamTlsMaterial upstreamTls) {
    var routing = spec.routing;
    AppProtocol protocol = spec.appProtocol == null ? AppProtocol.HTTP : spec.appProtocol;
    return new PoolSnapshot(
        pool,
        version,
        routing == null || routing.policy == null ? RoutingPolicy.RoundRobin : routing.policy,
        routing == null ? null : routing.adaptive,
        routing == null ? null : routing.outlierDetection,
        routing == null ? null : routing.retry,
        spec.route == null || spec.route.hosts == null ? List.of() : List.copyOf(spec.route.hosts),
        spec.route == null ? null : spec.route.port,
        tls,
        List.copyOf(members),
        protocol.value(),
        protocol.tls() ? upstreamTls : null,
        routing == null ? null : routing.slowStart,
        routing == null ? null : routing.panicThresholdPercent,
        routing == null ? null : routing.timeouts,
        routing == null ? null : routing.hedging,
        routing == null ? null : routing.maxRequestsPerMember,
        routing == null ? null : routing.queue,
        routing == null ? null : routing.consistentHash,
        routing == null ? null : routing.idempotent,
        spec.accessLog,
        routing == null || !Boolean.TRUE.equals(routing.forwardLoadReports) ? null : true);
  }

  private static boolean sameContent(PoolSnapshot a, PoolSnapshot b) {
    // Members first: they are what changes between probes; the settings rarely do.
    return Objects.equals(a.members(), b.members())
        && a.policy() == b.policy()
        && sameOnWire(a.adaptive(), b.adaptive())
        && sameOnWire(a.outlierDetection(), b.outlierDetection())
        && sameOnWire(a.retry(), b.retry())
        && Objects.equals(a.hosts(), b.hosts())
        && Objects.equals(a.port(), b.port())
        && Objects.equals(a.tls(), b.tls())
        && Objects.equals(a.appProtocol(), b.appProtocol())
        && Objects.equals(a.upstreamTls(), b.upstreamTls())
        && sameOnWire(a.slowStart(), b.slowStart())
        && Objects.equals(a.panicThresholdPercent(), b.panicThresholdPercent())
        && sameOnWire(a.timeouts(), b.timeouts())
        && sameOnWire(a.hedging(), b.hedging())
        && Objects.equals(a.maxRequestsPerMember(), b.maxRequestsPerMember())
        && sameOnWire(a.queue(), b.queue())
        && sameOnWire(a.consistentHash(), b.consistentHash())
        && sameOnWire(a.idempotent(), b.idempotent())
        && sameOnWire(a.accessLog(), b.accessLog())
        && Objects.equals(a.forwardLoadReports(), b.forwardLoadReports());
  }

  /**
   * The spec classes have no equals; compare what would go on the wire. The probe path passes the
   * very spec objects of the last reconcile, so identity settles it without serializing on every
   * probe.
   */
  private static boolean sameOnWire(Object a, Object b) {
    return a == b || Objects.equals(json(a), json(b));
  }

  private static String json(Object o) {
    return o == null ? null : io.fabric8.kubernetes.client.utils.Serialization.asJson(o);
  }
}
