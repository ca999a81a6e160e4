package dev.replicapool.testing;

import java.time.Duration;
import java.time.LocalTime;

/**
 * Works around a kube-api-test 7.5.2 bug: its readiness wait computes the deadline as {@code
 * LocalTime.now().plus(timeout)} and gives up when {@code now.isAfter(deadline)}. A deadline past
 * midnight wraps to the small hours, so a start begun at 23:58:30 with a two-minute timeout fails
 * on its first poll ("did not start properly"). CI runs at any hour, so each attempt gets a timeout
 * that ends before midnight, and a start too close to midnight waits until the clock has wrapped.
 */
final class MidnightSafeStartup {
  /** Attempts shorter than this are not worth making: the server needs several seconds. */
  static final Duration SHORTEST_ATTEMPT = Duration.ofSeconds(15);

  /** Kept between the attempt's deadline and midnight, for the library's 200 ms polls. */
  static final Duration MARGIN = Duration.ofSeconds(1);

  private MidnightSafeStartup() {}

  /**
   * The startup timeout for an attempt begun at {@code now}: the wanted one, cut short so that the
   * deadline stays before midnight; zero when too little time is left and the caller should wait
   * for {@link #untilAfterMidnight}.
   */
  static Duration attemptTimeout(LocalTime now, Duration wanted) {
    Duration leftToday = Duration.between(now, LocalTime.MAX).minus(MARGIN);
    if (leftToday.compareTo(wanted) >= 0) {
      return wanted;
    }
    return leftToday.compareTo(SHORTEST_ATTEMPT) >= 0 ? leftToday : Duration.ZERO;
  }

  /** How long to wait from {@code now} until the clock has passed midnight (plus the margin). */
  static Duration untilAfterMidnight(LocalTime now) {
    return Duration.between(now, LocalTime.MAX).plusNanos(1).plus(MARGIN);
  }
}
