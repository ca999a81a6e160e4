package dev.replicapool.operator.health;

import java.util.OptionalLong;

/**
 * The two clocks of a member's recovery: since when its results have been good (Degraded becomes
 * Healthy after {@code recoverAfterMillis} of them), and when its slow-start ramp began. The ramp's
 * start can be known before the member leaves Unhealthy (its first passing probe, a renewal after
 * an expired lease): it is kept pending until then. Times in clock milliseconds; plain data.
 */
final class Recovery {
  private OptionalLong goodSinceMillis;
  private OptionalLong rampStartMillis = OptionalLong.empty();
  private OptionalLong pendingRampStartMillis = OptionalLong.empty();

  Recovery(long nowMillis) {
    this.goodSinceMillis = OptionalLong.of(nowMillis);
  }

  /** Results are good now ({@code clean}) or not: good ones keep the earliest start. */
  void observe(boolean clean, long nowMillis) {
    if (!clean) {
      goodSinceMillis = OptionalLong.empty();
    } else if (goodSinceMillis.isEmpty()) {
      goodSinceMillis = OptionalLong.of(nowMillis);
    }
  }

  void notGood() {
    goodSinceMillis = OptionalLong.empty();
  }

  /** Good from now on, whatever came before (a member's first passes). */
  void goodFrom(long nowMillis) {
    goodSinceMillis = OptionalLong.of(nowMillis);
  }

  /** True once results have been good for {@code holdMillis}. */
  boolean heldFor(long holdMillis, long nowMillis) {
    return goodSinceMillis.isPresent() && nowMillis - goodSinceMillis.getAsLong() >= holdMillis;
  }

  /** The ramp will start at {@code startMillis} unless a later start is already pending. */
  void rampFrom(long startMillis) {
    pendingRampStartMillis =
        OptionalLong.of(
            pendingRampStartMillis.isPresent()
                ? Math.max(pendingRampStartMillis.getAsLong(), startMillis)
                : startMillis);
  }

  /** The member leaves Unhealthy: its ramp starts at the pending start, else now. */
  void startRamp(long nowMillis) {
    rampStartMillis = OptionalLong.of(pendingRampStartMillis.orElse(nowMillis));
    pendingRampStartMillis = OptionalLong.empty();
  }

  /** The member is down: no ramp, none pending. */
  void cancelRamp() {
    rampStartMillis = OptionalLong.empty();
    pendingRampStartMillis = OptionalLong.empty();
  }

  OptionalLong rampStartMillis() {
    return rampStartMillis;
  }
}
