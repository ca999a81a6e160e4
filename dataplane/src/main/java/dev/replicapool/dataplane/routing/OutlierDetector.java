package dev.replicapool.dataplane.routing;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Passive outlier detection of one pool (Envoy's consecutive-5xx detector): {@code
 * consecutiveFailures} failures in a row eject a member for base x n (the n-th ejection, capped at
 * the maximum); back from an ejection it is on probation, where one failure ejects it again and a
 * success forgives. Never more than {@link OutlierPolicy#maxEjected} of the admitted members are
 * ejected at once. A member that behaved for longer than the maximum ejection starts over at the
 * base length.
 *
 * <p>The per-member state is this class's. A detector built for a newer snapshot of the pool shares
 * the state of the members that stay, so an ejection outlives the snapshot. Called under the pool's
 * lock; time from the injected clock.
 */
public final class OutlierDetector {
  private static final class State {
    int consecutiveFailures;
    int ejections;
    boolean ejected;
    long ejectedUntilNanos;
    boolean probation;
    long lastEjectionEndNanos;
  }

  private final OutlierPolicy policy;
  private final List<Endpoint> members;
  private final Map<Endpoint, State> states;
  private final LongSupplier clock;
  private final EjectionEvents events;

  /**
   * @param members the pool's members, in snapshot order
   * @param previous the detector of the pool's earlier snapshot, or null
   */
  public OutlierDetector(
      OutlierPolicy policy,
      List<Endpoint> members,
      OutlierDetector previous,
      LongSupplier clock,
      EjectionEvents events) {
    this.policy = policy;
    this.members = members;
    this.clock = clock;
    this.events = events;
    this.states = new HashMap<>(members.size() * 2);
    for (Endpoint e : members) {
      State s = previous == null ? null : previous.states.get(e);
      states.put(e, s != null ? s : new State());
    }
  }

  /** A response below 500: the failure streak and probation end. */
  public void success(Endpoint e) {
    State s = states.get(e);
    if (s != null) {
      s.consecutiveFailures = 0;
      s.probation = false;
    }
  }

  /**
   * A failure of {@code e} (refused, reset, timed out or 5xx).
   *
   * @return true when this failure ejected it
   */
  public boolean failure(Endpoint e) {
    long now = clock.getAsLong();
    State s = states.get(e);
    if (s == null || ejected(e, now)) {
      return false; // not a member any more, or a request that started before the ejection
    }
    s.consecutiveFailures++;
    if (policy.consecutiveFailures() <= 0) {
      return false;
    }
    if (!s.probation && s.consecutiveFailures < policy.consecutiveFailures()) {
      return false;
    }
    if (!e.admitted() || ejectedAdmitted(now) >= policy.maxEjected(admitted())) {
      return false;
    }
    eject(e, s, now);
    return true;
  }

  private void eject(Endpoint e, State s, long now) {
    if (s.ejections > 0 && now - s.lastEjectionEndNanos > policy.maxEjectionMillis() * 1_000_000L) {
      s.ejections = 0; // it behaved for a long while: start over at the base length
    }
    s.ejections++;
    long millis = policy.ejectionMillis(s.ejections);
    s.ejected = true;
    s.ejectedUntilNanos = now + millis * 1_000_000L;
    s.consecutiveFailures = 0;
    s.probation = false;
    events.ejected(e, millis);
  }

  /** Whether {@code e} is ejected at {@code now}; ends an ejection whose time is up (probation). */
  public boolean ejected(Endpoint e, long now) {
    State s = states.get(e);
    if (s == null) {
      return false;
    }
    if (s.ejected && now - s.ejectedUntilNanos >= 0) {
      s.ejected = false;
      s.probation = true;
      s.lastEjectionEndNanos = now;
      events.returned(e);
    }
    return s.ejected;
  }

  /** Whether {@code e} is ejected now. */
  public boolean ejected(Endpoint e) {
    return ejected(e, clock.getAsLong());
  }

  /** How much longer {@code e} stays ejected, 0 when it is not. */
  public long ejectedForMillis(Endpoint e, long now) {
    State s = states.get(e);
    return s != null && ejected(e, now) ? Math.max(0, (s.ejectedUntilNanos - now) / 1_000_000L) : 0;
  }

  /** How often {@code e} was ejected since it last started over. */
  public int ejections(Endpoint e) {
    State s = states.get(e);
    return s == null ? 0 : s.ejections;
  }

  public int consecutiveFailures(Endpoint e) {
    State s = states.get(e);
    return s == null ? 0 : s.consecutiveFailures;
  }

  /** Whether {@code e} came back from an ejection and has not answered well since. */
  public boolean onProbation(Endpoint e) {
    State s = states.get(e);
    return s != null && s.probation;
  }

  private int admitted() {
    int n = 0;
    for (Endpoint o : members) {
      if (o.admitted()) {
        n++;
      }
    }
    return n;
  }

  private int ejectedAdmitted(long now) {
    int n = 0;
    for (Endpoint o : members) {
      if (o.admitted() && ejected(o, now)) {
        n++;
      }
    }
    return n;
  }
}
