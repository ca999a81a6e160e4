package dev.replicapool.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.LocalTime;
import org.junit.jupiter.api.Test;

class MidnightSafeStartupTest {
  private static final Duration TWO_MINUTES = Duration.ofMinutes(2);

  @Test
  void daytimeStartsGetTheWholeTimeout() {
    assertThat(MidnightSafeStartup.attemptTimeout(LocalTime.of(12, 0), TWO_MINUTES))
        .isEqualTo(TWO_MINUTES);
    assertThat(MidnightSafeStartup.attemptTimeout(LocalTime.of(23, 57, 58), TWO_MINUTES))
        .isEqualTo(TWO_MINUTES);
  }

  @Test
  void aStartWhoseDeadlineWouldWrapIsCutShortBeforeMidnight() {
    // The CI run that found the bug started its last API server at about 23:58:30.
    Duration timeout = MidnightSafeStartup.attemptTimeout(LocalTime.of(23, 58, 30), TWO_MINUTES);

    assertThat(timeout).isLessThan(TWO_MINUTES).isGreaterThan(Duration.ofSeconds(85));
    assertThat(LocalTime.of(23, 58, 30).plus(timeout)).isAfter(LocalTime.of(23, 58, 30));
  }

  @Test
  void tooCloseToMidnightMeansWaitingForIt() {
    LocalTime now = LocalTime.of(23, 59, 50);

    assertThat(MidnightSafeStartup.attemptTimeout(now, TWO_MINUTES)).isZero();
    Duration wait = MidnightSafeStartup.untilAfterMidnight(now);
    assertThat(wait).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(12));
    LocalTime after = now.plus(wait);
    assertThat(MidnightSafeStartup.attemptTimeout(after, TWO_MINUTES)).isEqualTo(TWO_MINUTES);
  }
}
