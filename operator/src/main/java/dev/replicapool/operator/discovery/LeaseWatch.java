package dev.replicapool.operator.discovery;

/**
 * What the operator can vouch for about its Lease watch: since when it has been live without a
 * break, and when it last delivered an event. A Lease's silence is evidence of expiry only over
 * time this watch was demonstrably live and flowing ({@link LeaseExpiry}); a watch that was
 * re-establishing (fabric8 rotates it every 5-10 minutes, and reconnects after a broken connection)
 * hears no renewal, and that silence proves nothing.
 *
 * <p>Liveness is sampled (the informer's {@code isWatching && hasSynced}, every few tens of ms): a
 * stretch between two samples further apart than {@link #MAX_SAMPLE_GAP_MILLIS} is not vouched for,
 * so a stalled sampler makes the watch look newly live, never older than it is. Pure: the caller
 * hands in the time.
 */
public final class LeaseWatch {
  /** Two samples further apart than this leave a stretch nobody saw: it starts the run anew. */
  public static final long MAX_SAMPLE_GAP_MILLIS = 100;

  private enum State {
    DOWN,
    LIVE
  }

  private State state = State.DOWN;
  private long liveSinceMillis;
  private long lastSampleMillis = Long.MIN_VALUE;
  private long lastEventMillis = Long.MIN_VALUE;

  /** One sample of whether the watch is established and its cache synced. */
  public synchronized void sample(boolean watching, long nowMillis) {
    if (!watching) {
      state = State.DOWN;
    } else if (state == State.DOWN || nowMillis - lastSampleMillis > MAX_SAMPLE_GAP_MILLIS) {
      state = State.LIVE;
      liveSinceMillis = nowMillis;
    }
    lastSampleMillis = nowMillis;
  }

  /** The watch delivered an add, update or delete of some Lease. */
  public synchronized void eventDelivered(long nowMillis) {
    lastEventMillis = Math.max(lastEventMillis, nowMillis);
  }

  /**
   * Whether the watch was live at every moment from {@code fromMillis} to now: live since then
   * without a break, and sampled recently enough that "now" is seen too.
   */
  public synchronized boolean liveThroughout(long fromMillis, long nowMillis) {
    return state == State.LIVE
        && liveSinceMillis <= fromMillis
        && nowMillis - lastSampleMillis <= MAX_SAMPLE_GAP_MILLIS;
  }

  /** Whether the watch delivered an event at or after {@code sinceMillis}: its stream flows. */
  public synchronized boolean deliveredSince(long sinceMillis) {
    return lastEventMillis >= sinceMillis;
  }
}
