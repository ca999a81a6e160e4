package dev.replicapool.operator.health;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The hard bound on a member's state changes: at most N recoveries (a change toward a better state:
 * Unhealthy to Degraded, Degraded to Healthy, a never-routable member to Healthy) in any rolling
 * {@link #WINDOW_MILLIS}, N being {@code healthCheck.maxRecoveriesPerMinute} (default 3). Beyond
 * that the member stays in its worse state until the oldest recovery leaves the window. Changes
 * toward worse are never held: traffic must leave a failing member at once. The anti-flapping
 * doubling of {@link DownCauses} makes flapping rare; this makes it bounded whatever the
 * thresholds, the hold and the luck of the probes, and for a Lease's health flag too.
 *
 * <p>Each step is at most one level (at most one transition per input), except a never-routable
 * member's first Healthy, so a member can fall at most 2 + N times in a window: at most 2N + 2
 * changes per minute, 8 with the default. 3 leaves room for a member that crashes and comes back
 * once in a minute (two recoveries); a 30 s recovery hold (the default) allows two full recoveries
 * a minute anyway. Tests that restart members on purpose raise it. Plain data; clock milliseconds.
 */
final class FlapLimit {
  static final long WINDOW_MILLIS = 60_000;

  private final int maxRecoveries;

  /** Times of the recoveries still within the window, oldest first. */
  private final Deque<Long> recoveries = new ArrayDeque<>();

  FlapLimit(int maxRecoveries) {
    this.maxRecoveries = maxRecoveries;
  }

  /** True when one more recovery at {@code nowMillis} stays within the bound. */
  boolean allows(long nowMillis) {
    while (!recoveries.isEmpty() && nowMillis - recoveries.peekFirst() >= WINDOW_MILLIS) {
      recoveries.removeFirst();
    }
    return recoveries.size() < maxRecoveries;
  }

  void recovered(long nowMillis) {
    recoveries.addLast(nowMillis);
  }

  /** What a held member's reason says; names no countdown, so the status is not rewritten. */
  String heldReason() {
    return "held for flapping: "
        + maxRecoveries
        + (maxRecoveries == 1 ? " recovery" : " recoveries")
        + " within "
        + WINDOW_MILLIS / 1000
        + "s, the most a member gets (healthCheck.maxRecoveriesPerMinute)";
  }
}
