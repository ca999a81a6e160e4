package dev.replicapool.operator.status;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;

/**
 * One Event when a pool enters panic routing (its {@code Degraded} condition has reason {@code
 * Panic}: too few members routable, the data planes route to all) and one when it leaves it, not
 * one per reconcile.
 */
public final class PanicEvents {
  private final EventRecorder events;

  public PanicEvents(EventRecorder events) {
    this.events = events;
  }

  /**
   * Compares the pool's fresh status with whether it was in panic routing before.
   *
   * @return whether it is in panic routing now: what the caller passes as {@code wasPanicking} next
   *     time
   */
  public boolean observe(ReplicaPool pool, boolean wasPanicking, ReplicaPoolStatus status) {
    var degraded = Conditions.find(status.conditions, Conditions.DEGRADED);
    boolean panic = degraded != null && "Panic".equals(degraded.getReason());
    if (panic && !wasPanicking) {
      events.poolWide(pool, true, "PanicRouting", degraded.getMessage());
    } else if (!panic && wasPanicking) {
      events.poolWide(
          pool,
          false,
          "PanicRoutingEnded",
          status.routable
              + " of "
              + status.registered
              + " members routable: routing to routable members only again");
    }
    return panic;
  }
}
