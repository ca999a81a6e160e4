package dev.replicapool.operator.discovery;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;

/**
 * Decides whether a Lease has expired, on evidence rather than on silence: the operator removes a
 * member only when it has a current view that the Lease was not renewed.
 *
 * <p>A Lease whose last renewal, as the operator observed it ({@link LeaseTracker}, its own clock),
 * is younger than the lease duration is {@link Verdict#ALIVE}. Once older, the silence counts as
 * expiry only with one of two kinds of evidence:
 *
 * <ul>
 *   <li>the watch vouches for it ({@link LeaseWatch}): live without a break since the last renewal
 *       was seen, and flowing, i.e. it delivered some Lease event in the last third of the lease (a
 *       registration renews at least three times per lease, so a live stream carries one while any
 *       member lives). A dead member is then gone at the lease duration, no read needed.
 *   <li>a fresh read of the Lease from the API server, sent after the lease was due, showed the
 *       same renewal ({@link LeaseTracker#confirmFresh}).
 * </ul>
 *
 * An expiry, once established, stays until the Lease is renewed. Otherwise the verdict is {@link
 * Verdict#UNCONFIRMED}: the watch was re-establishing, behind or stalled during the silence, so the
 * member stays and the reconciler reads the Lease afresh; a read that fails (the API server
 * unreachable) decides nothing, and it is tried again after {@link #RECHECK_MILLIS}. No I/O and no
 * clock of its own: the caller hands in the time; an expiry established on the watch is recorded in
 * the tracker.
 */
public final class LeaseExpiry {
  /** How soon an unconfirmed expiry is looked at again. */
  public static final long RECHECK_MILLIS = 100;

  /** What is known of a Lease now. */
  public enum Verdict {
    /** Renewed within the lease duration. */
    ALIVE,
    /** Not renewed for the lease duration, and the operator's view of it is current. */
    EXPIRED,
    /** Silent for the lease duration, but the watch cannot vouch for the silence. */
    UNCONFIRMED
  }

  private final LeaseTracker tracker;
  private final LeaseWatch watch;

  public LeaseExpiry(LeaseTracker tracker, LeaseWatch watch) {
    this.tracker = tracker;
    this.watch = watch;
  }

  public LeaseTracker tracker() {
    return tracker;
  }

  public Verdict judge(Lease lease, long durationMillis, long nowMillis) {
    long renewed = tracker.lastRenewalMillis(lease);
    long due = renewed + durationMillis;
    if (nowMillis < due) {
      return Verdict.ALIVE;
    }
    if (tracker.silenceConfirmedAtMillis(lease) >= due) {
      return Verdict.EXPIRED;
    }
    if (watch.liveThroughout(renewed, nowMillis)
        && watch.deliveredSince(due - durationMillis / 3)) {
      // Kept as a fact: a watch that breaks later must not bring the member back unconfirmed.
      tracker.confirmSilence(lease, nowMillis);
      return Verdict.EXPIRED;
    }
    return Verdict.UNCONFIRMED;
  }

  /** When the Lease expires unless renewed (epoch millis), as last observed. */
  public long dueMillis(Lease lease, long durationMillis) {
    return tracker.lastRenewalMillis(lease) + durationMillis;
  }
}
