package dev.replicapool.operator.membership;

import java.time.Clock;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How long members that left a pool's membership by an edit (removed from {@code spec.endpoints}, a
 * Pod the selector no longer matches) keep serving, so that replacing every member in one edit
 * costs no request: the new members are Pending until their first passing probes, and without this
 * the pool had nobody to route to meanwhile (Envoy keeps removed hosts that pass their checks the
 * same way). Plain Java, no I/O, time from an injected {@link Clock}; not thread-safe (the pool
 * state's lock guards it).
 *
 * <p>The rule, per leaving member, in this order:
 *
 * <ol>
 *   <li>it no longer passes its probes, or its Pod is gone, terminating or not Ready ({@link
 *       #stopped}): removed at once, as any such member would be;
 *   <li>as many members of the new membership are routable as the pool had routable members when it
 *       left (at most as many as the new membership has): removed, so it gets no new requests
 *       (requests in flight finish on the data plane);
 *   <li>it was kept {@code capMillis} (the pool's startup grace: a new member that has not answered
 *       by then is Unhealthy anyway): removed, so that stale members do not stay for ever when the
 *       new ones never come up;
 *   <li>else kept, routable, shown Draining with the reason.
 * </ol>
 *
 * <p>Members that leave while not routable, Lease members and Pods that are gone or not Ready are
 * not handed over: the caller removes them at once.
 */
public final class HandOver {
  /** Where a leaving member stands. */
  public enum Phase {
    /** Still routable and still needed: it gets requests until the new members take over. */
    KEPT,
    /** No longer needed or no longer fit: the caller removes it. */
    REMOVED
  }

  /** What to do with one leaving member, and why, in words for its status and Event. */
  public record Decision(Phase phase, String reason) {}

  /** One leaving member: since when, what the pool had routable then, why it left. */
  private record Leaving(long sinceMillis, int routableBefore, String why) {}

  private final Clock clock;
  private final Map<String, Leaving> leaving = new TreeMap<>();

  public HandOver(Clock clock) {
    this.clock = clock;
  }

  /**
   * A routable member left the membership by an edit.
   *
   * @param why how it left, for its status ("removed from spec", "no longer selected")
   * @param routableBefore routable members of the pool just before the edit, itself included
   */
  public void left(String address, String why, int routableBefore) {
    leaving.putIfAbsent(address, new Leaving(clock.millis(), routableBefore, why));
  }

  /** The member is in the membership again: no longer leaving. */
  public void returned(String address) {
    leaving.remove(address);
  }

  public boolean isLeaving(String address) {
    return leaving.containsKey(address);
  }

  public Set<String> addresses() {
    return new TreeSet<>(leaving.keySet());
  }

  /** When the member left (epoch millis); 0 when it is not leaving. */
  public long sinceMillis(String address) {
    Leaving l = leaving.get(address);
    return l == null ? 0 : l.sinceMillis();
  }

  /**
   * Decides for one leaving member; a {@link Phase#REMOVED} decision forgets it.
   *
   * @param stillRoutable whether its own probes still make it routable
   * @param routableNew routable members of the current membership
   * @param members members of the current membership
   * @param capMillis the most it is kept
   */
  public Decision decide(
      String address, boolean stillRoutable, int routableNew, int members, long capMillis) {
    Decision d = judge(address, stillRoutable, routableNew, members, capMillis);
    if (d.phase() == Phase.REMOVED) {
      leaving.remove(address);
    }
    return d;
  }

  /**
   * The member stopped running while kept (its Pod is gone, terminating or not Ready): it leaves at
   * once, as such a member always does; forgets it.
   */
  public Decision stopped(String address) {
    Leaving l = leaving.remove(address);
    String why = l == null ? "left" : l.why();
    return new Decision(Phase.REMOVED, why + "; its Pod is gone, terminating or not Ready");
  }

  /**
   * As {@link #decide}, without forgetting it: what its status says, whether a reconcile is due.
   */
  public Decision judge(
      String address, boolean stillRoutable, int routableNew, int members, long capMillis) {
    Leaving l = leaving.get(address);
    if (l == null) {
      return new Decision(Phase.REMOVED, "not leaving");
    }
    int needed = Math.min(l.routableBefore(), members);
    long kept = clock.millis() - l.sinceMillis();
    if (!stillRoutable) {
      return new Decision(Phase.REMOVED, l.why() + "; stopped passing its probes while kept");
    }
    if (routableNew >= needed) {
      String after = kept > 0 ? " after " + kept + "ms" : "";
      return new Decision(
          Phase.REMOVED,
          l.why()
              + "; "
              + routableNew
              + (routableNew == 1 ? " routable member takes" : " routable members take")
              + " over"
              + after);
    }
    if (kept >= capMillis) {
      return new Decision(
          Phase.REMOVED,
          l.why()
              + "; kept "
              + capMillis
              + "ms, the most a leaving member is kept, with "
              + routableNew
              + " of "
              + needed
              + " new members routable");
    }
    return new Decision(
        Phase.KEPT,
        l.why()
            + "; kept until "
            + members(needed)
            + " routable ("
            + routableNew
            + " now), at most "
            + capMillis
            + "ms");
  }

  private static String members(int n) {
    return n == 1 ? "1 new member is" : n + " new members are";
  }
}
