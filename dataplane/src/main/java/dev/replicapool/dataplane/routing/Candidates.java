package dev.replicapool.dataplane.routing;

import dev.replicapool.api.v1alpha1.MemberState;
import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;

/**
 * Which members of a pool may take the next request, and with what weight. Normally the admitted
 * members that are not ejected, each at the operator's weight times its {@link SlowStartRamp}
 * factor. In panic (fewer than {@code panicThresholdPercent} of the registered members routable,
 * Envoy's panic threshold) every registered member that is not draining, at equal weight: when
 * health checks say nearly everybody is down, they are more likely wrong than the members, and
 * trying all beats answering 503 to everything.
 *
 * <p>Called under the pool's lock; writes the endpoints' pool-lock fields.
 */
final class Candidates {
  private final SlowStartRamp ramp;
  private final int panicThresholdPercent;

  Candidates(SlowStartRamp ramp, int panicThresholdPercent) {
    this.ramp = ramp;
    this.panicThresholdPercent = panicThresholdPercent;
  }

  /** Marks the moment this data plane first sees a member admitted: its ramp starts there. */
  static void noteAdmitted(Endpoint e, long nowNanos) {
    if (!e.seenAdmitted && e.admitted()) {
      e.seenAdmitted = true;
      e.admittedSinceNanos = nowNanos;
    }
  }

  /** True when fewer than the threshold share of registered members is routable; 0: never. */
  boolean panic(List<Endpoint> endpoints, Predicate<Endpoint> ejected) {
    if (panicThresholdPercent <= 0) {
      return false;
    }
    int registered = 0;
    int routable = 0;
    for (int i = 0; i < endpoints.size(); i++) {
      Endpoint e = endpoints.get(i);
      if (registered(e)) {
        registered++;
        if (e.admitted() && !ejected.test(e)) {
          routable++;
        }
      }
    }
    return registered > 0 && routable * 100L < (long) panicThresholdPercent * registered;
  }

  /**
   * The candidates for a request that already failed on {@code tried}, weights set, into {@code
   * out} (cleared first: the router's one list, so a pick allocates nothing).
   */
  List<Endpoint> select(
      List<Endpoint> endpoints,
      Collection<Endpoint> tried,
      long nowNanos,
      Predicate<Endpoint> ejected,
      List<Endpoint> out) {
    boolean panic = panic(endpoints, ejected);
    out.clear();
    for (int i = 0; i < endpoints.size(); i++) {
      Endpoint e = endpoints.get(i);
      noteAdmitted(e, nowNanos);
      if (tried.contains(e)) {
        continue;
      }
      if (panic ? registered(e) : e.admitted() && !ejected.test(e)) {
        e.effectiveWeight = panic ? 1.0 : effectiveWeight(e, nowNanos);
        out.add(e);
      }
    }
    return out;
  }

  /** The operator's weight times the slow-start factor of a member that joined late. */
  double effectiveWeight(Endpoint e, long nowNanos) {
    if (!e.joinedLate || !e.seenAdmitted || !ramp.enabled()) {
      return e.weight();
    }
    long elapsedMillis = (nowNanos - e.admittedSinceNanos) / 1_000_000L;
    return e.weight() * ramp.factor(elapsedMillis);
  }

  /**
   * Counted in the panic share and routed to in panic: not on its way out (Draining), and not one
   * that never answered a probe (Pending), else every new pool would start in panic.
   */
  static boolean registered(Endpoint e) {
    return e.state() != null
        && e.state() != MemberState.Draining
        && e.state() != MemberState.Pending;
  }
}
