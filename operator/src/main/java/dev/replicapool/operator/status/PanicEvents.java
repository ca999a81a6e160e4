package dev.replicapool.operator.status;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One Event when a pool enters panic routing (its {@code Degraded} condition has reason {@code
 * Panic}: too few members routable, the data planes route to all) and one when it leaves it, not
 * one per reconcile.
 */
public final class PanicEvents {
  private final EventRecorder events;
  private final Map<String, Boolean> panicking = new ConcurrentHashMap<>();

  public PanicEvents(EventRecorder events) {
    this.events = events;
  }

  /** Compares the fresh status of pool {@code key} ("namespace/name") with the last one seen. */
  public void observe(ReplicaPool pool, String key, ReplicaPoolStatus status) {
    var degraded = Conditions.find(status.conditions, Conditions.DEGRADED);
    boolean panic = degraded != null && "Panic".equals(degraded.getReason());
    if (panic && panicking.putIfAbsent(key, true) == null) {
      events.poolWide(pool, true, "PanicRouting", degraded.getMessage());
    } else if (!panic && panicking.remove(key) != null) {
      events.poolWide(
          pool,
          false,
          "PanicRoutingEnded",
          status.routable
              + " of "
              + status.registered
              + " members routable: routing to routable members only again");
    }
  }

  public void forget(String key) {
    panicking.remove(key);
  }
}
