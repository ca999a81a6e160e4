package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;
import dev.replicapool.operator.metrics.OperatorMetrics;
import dev.replicapool.operator.status.EventRecorder;
import dev.replicapool.operator.status.PanicEvents;
import dev.replicapool.operator.status.StatusBuilder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a reconcile tells besides status: Warning Events for configuration problems, refusals and
 * panic routing (each refusal and each entry into panic once, not on every reconcile), the
 * member-state gauges and the gauges of what the status says.
 */
final class PoolReport {
  private final EventRecorder events;
  private final PanicEvents panicEvents;
  private final OperatorMetrics metrics;

  PoolReport(EventRecorder events, OperatorMetrics metrics) {
    this.events = events;
    this.panicEvents = new PanicEvents(events);
    this.metrics = metrics;
  }

  /** A selector that matches nothing, and every part of the configuration that cannot be used. */
  void problems(ReplicaPool pool, PoolObserver.Observed seen) {
    if (seen.noMembersReason() != null) {
      events.warning(pool, "SelectorMatchesNothing", seen.noMembersReason());
    }
    for (String problem : seen.problems()) {
      events.warning(pool, "InvalidConfiguration", problem);
    }
  }

  /**
   * A data plane refused the pool's snapshot (a port it cannot bind, a certificate it cannot load):
   * the DataPlaneSynced condition says so, and one Warning Event per distinct refusal tells {@code
   * kubectl describe} readers, without an Event on every reconcile.
   */
  void rejections(ReplicaPool pool, PoolState state, StatusBuilder.DataPlaneSync dataPlanes) {
    if (dataPlanes == null || dataPlanes.nacks().isEmpty()) {
      state.rejectionChanged(null);
      return;
    }
    String message = String.join("; ", dataPlanes.nacks());
    // The same refusal of a newer version is not news.
    String gist = message.replaceAll("version \\d+", "version");
    if (state.rejectionChanged(gist)) {
      events.warning(pool, "DataPlaneRejected", message);
    }
  }

  /** An Event on entering and on leaving panic routing. */
  void panic(ReplicaPool pool, PoolState state, ReplicaPoolStatus status) {
    state.setPanicking(panicEvents.observe(pool, state.panicking(), status));
  }

  /** The status's conditions, routable members and capacity minimum, as gauges for alerts. */
  void poolStatus(PoolState state, ReplicaPoolStatus status) {
    Map<String, Boolean> conditions = new LinkedHashMap<>();
    if (status.conditions != null) {
      status.conditions.forEach(c -> conditions.put(c.getType(), "True".equals(c.getStatus())));
    }
    metrics.poolStatus(
        state.name(),
        conditions,
        status.routable == null ? 0 : status.routable,
        status.capacity == null ? null : status.capacity.minReplicas);
  }

  void memberStates(PoolState state) {
    metrics.members(
        state.name(),
        state.members().stream()
            .map(t -> (OperatorMetrics.HasState) () -> t.health().state())
            .toList());
  }
}
