package dev.replicapool.controlplane;

import java.util.Set;
import java.util.TreeSet;

/**
 * When one data plane is sent again the pools whose latest snapshot it rejected: what it runs must
 * converge on the spec, and a rejection (a host another pool still holds, a port in use) often goes
 * away without the rejected pool changing. It is retried:
 *
 * <ul>
 *   <li>at once when the data plane applied a change that gave up a host or port (another pool
 *       moved off it or was removed), the likeliest end of the conflict;
 *   <li>otherwise after a backoff that doubles from {@link #FIRST_DELAY_MILLIS} to {@link
 *       #MAX_DELAY_MILLIS} with every round that is rejected again.
 * </ul>
 *
 * A round resends every rejected pool of the data plane together, so that changes that only fit
 * together (two pools that swap hosts) arrive in one batch. A newer version of the pool, its
 * removal or its ACK ends its retries. Plain Java, no I/O, the time passed in; not thread-safe: the
 * server's lock guards it.
 */
final class NackRetry {
  static final long FIRST_DELAY_MILLIS = 200;
  static final long MAX_DELAY_MILLIS = 5_000;
  private static final long NOT_DUE = Long.MAX_VALUE;

  private final Set<String> rejected = new TreeSet<>();
  private int rounds;
  private long dueAtMillis = NOT_DUE;

  /** The data plane rejected the pool's latest version: a round is due after the backoff. */
  void rejected(String pool, long nowMillis) {
    rejected.add(pool);
    if (dueAtMillis == NOT_DUE) {
      dueAtMillis = nowMillis + backoffMillis();
    }
  }

  /** The pool needs no retry: the data plane applied it, or was sent a newer version or removal. */
  void settled(String pool) {
    if (rejected.remove(pool) && rejected.isEmpty()) {
      rounds = 0;
      dueAtMillis = NOT_DUE;
    }
  }

  /** The data plane gave up a host or port: what it rejected may fit now, so a round is due now. */
  void freed(long nowMillis) {
    if (!rejected.isEmpty()) {
      rounds = 0;
      dueAtMillis = nowMillis;
    }
  }

  /**
   * The pools to send again now, all of this data plane's rejected ones, or none when no round is
   * due. The next round is due when one of them is rejected again.
   */
  Set<String> due(long nowMillis) {
    if (rejected.isEmpty() || nowMillis < dueAtMillis) {
      return Set.of();
    }
    rounds++;
    dueAtMillis = NOT_DUE;
    return Set.copyOf(rejected);
  }

  /** The pools rejected and not settled since. */
  Set<String> rejected() {
    return Set.copyOf(rejected);
  }

  /** The wait before the next round: doubling with every round rejected again, bounded. */
  long backoffMillis() {
    return Math.min(MAX_DELAY_MILLIS, FIRST_DELAY_MILLIS << Math.min(rounds, 16));
  }
}
