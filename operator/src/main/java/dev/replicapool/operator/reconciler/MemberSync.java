package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.operator.discovery.Member;
import dev.replicapool.operator.discovery.MemberDiscovery;
import dev.replicapool.operator.health.HealthPolicy;
import dev.replicapool.operator.health.Transition;
import dev.replicapool.operator.membership.HandOver;
import dev.replicapool.operator.metrics.OperatorMetrics;
import dev.replicapool.operator.probing.MemberKey;
import dev.replicapool.operator.probing.ProbeSpec;
import dev.replicapool.operator.probing.Prober;
import dev.replicapool.operator.status.EventRecorder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second phase of a reconcile: brings the pool's health models in line with the members just
 * observed, and the prober with them; reports every member that left and every state change since
 * the last reconcile (including those probes caused) as an Event and a metric.
 */
final class MemberSync {
  private static final Logger LOG = LoggerFactory.getLogger(MemberSync.class);

  private final Prober prober;
  private final EventRecorder events;
  private final OperatorMetrics metrics;

  MemberSync(Prober prober, EventRecorder events, OperatorMetrics metrics) {
    this.prober = prober;
    this.events = events;
    this.metrics = metrics;
  }

  void sync(ReplicaPool pool, PoolState state, PoolObserver.Observed seen) {
    PoolState.SyncResult sync;
    boolean probeSpecChanged;
    synchronized (state) {
      state.setTls(seen.tls());
      state.setUpstreamTls(seen.upstreamTls());
      sync =
          state.sync(
              pool.getSpec(),
              seen.members(),
              routableInStatus(pool),
              m -> MemberDiscovery.leftByEdit(m, seen.pods()));
      probeSpecChanged = state.setProbeSpec(seen.probeSpec());
    }
    Map<String, String> handedOver = new HashMap<>();
    for (PoolState.Departure d : sync.departures()) {
      if (d.phase() == HandOver.Phase.REMOVED) {
        handedOver.put(d.member().address(), d.reason());
      } else {
        String message = d.member().address() + " (" + d.member().source() + ") " + d.reason();
        events.normal(pool, "MemberLeaving", message);
        LOG.info("pool {}: {}", state.name(), message);
      }
    }
    for (Member m : sync.removed()) {
      prober.untrack(state.name(), m.address());
      String why = handedOver.get(m.address());
      events.normal(
          pool,
          "MemberRemoved",
          m.address() + " (" + m.source() + ") left the pool" + (why == null ? "" : ": " + why));
    }
    // A new check (type, port, TLS material...) applies to every member, not only new ones.
    track(state, probeSpecChanged ? seen.members() : sync.added(), seen.probeSpec());
    reportTransitions(pool, state);
  }

  /** Stops probing every member of the pool (the pool is gone), known to its state or not. */
  void untrackPool(String pool) {
    prober.untrackPool(pool);
  }

  private void track(PoolState state, List<Member> members, ProbeSpec probeSpec) {
    HealthPolicy policy = state.policy();
    for (Member m : members) {
      if (policy.activeChecks()) {
        prober.track(
            new MemberKey(state.name(), m.address()),
            m.host(),
            m.port(),
            probeSpec,
            policy.intervalMillis(),
            policy.timeoutMillis());
      } else {
        prober.untrack(state.name(), m.address());
      }
    }
  }

  private void reportTransitions(ReplicaPool pool, PoolState state) {
    for (PoolState.MemberTransition mt : state.drainTransitions()) {
      Transition t = mt.transition();
      metrics.transition(state.name(), t);
      String message = mt.address() + " " + t.from() + " -> " + t.to() + ": " + t.reason();
      if (t.to() == MemberState.Healthy) {
        events.normal(pool, "MemberHealthy", message);
        LOG.info("pool {}: {}", state.name(), message);
      } else if (t.to() == MemberState.Draining || t.from() == MemberState.Draining) {
        // A drain is an operation asked for, not a fault.
        events.normal(
            pool, t.to() == MemberState.Draining ? "MemberDraining" : "MemberUndrained", message);
        LOG.info("pool {}: {}", state.name(), message);
      } else {
        events.warning(pool, "Member" + t.to(), message);
        // The log says why too (a TLS name, an expired certificate), not only the Event.
        LOG.warn("pool {}: {}", state.name(), message);
      }
    }
  }

  /** Addresses the pool's last written status shows routable (Healthy or Degraded). */
  static Set<String> routableInStatus(ReplicaPool pool) {
    if (pool.getStatus() == null || pool.getStatus().endpoints == null) {
      return Set.of();
    }
    return pool.getStatus().endpoints.stream()
        .filter(e -> e.address != null && e.weight != null && e.weight > 0)
        .filter(e -> e.state == MemberState.Healthy || e.state == MemberState.Degraded)
        .map(e -> e.address)
        .collect(Collectors.toSet());
  }
}
