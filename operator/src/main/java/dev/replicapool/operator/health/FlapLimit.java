package dev.replicapool.operator.health;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The hard bound on a member's state changes: at most {@link #MAX_RECOVERIES} recoveries (a change
 * toward a better state: Unhealthy to Degraded, Degraded to Healthy, a never-routable member to
 * Healthy) in any rolling {@link #WINDOW_MILLIS}. Beyond that the member stays in its worse state
 * until the oldest recovery leaves the window. Changes toward worse are never held: traffic must
 * leave a failing member at once. The anti-flapping doubling of {@link DownCauses} makes flapping
 * rare; this makes it bounded whatever the thresholds and the luck of the probes.
 *
 * <p>Each step is at most one level (at most one transition per input), except a never-routable
 * member's first Healthy, so a member starting Healthy can fall at most 2 + N times in a window: at
 * most 2N + 2 changes per minute, 8 with N = 3. Not configurable: 3 leaves room for a member
 * restarted twice in a minute, while a 30 s recovery hold (the default) allows two a minute anyway.
 * Plain data; times in clock milliseconds.
 */
final class FlapLimit {
  static final int MAX_RECOVERIES = 3;
  static final long WINDOW_MILLIS = 60_000;

  /** Times of the recoveries still within the window, oldest first. */
  private final Deque<Long> recoveries = new ArrayDeque<>();

  /** True when one more recovery at {@code nowMillis} stays within the bound. */
  boolean allows(long nowMillis) {
    while (!recoveries.isEmpty() && nowMillis - recoveries.peekFirst() >= WINDOW_MILLIS) {
      recoveries.removeFirst();
    }
    return recoveries.size() < MAX_RECOVERIES;
  }

  void recovered(long nowMillis) {
    recoveries.addLast(nowMillis);
  }

  /** What a held member's reason says; names no countdown, so the status is not rewritten. */
  static String heldReason() {
    return "held for flapping: "
        + MAX_RECOVERIES
        + " recoveries within "
        + WINDOW_MILLIS / 1000
        + "s, the most a member gets";
  }
}
