package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** One log line per interval, and the count of those left out. */
class LogLimitTest {
  final long[] now = {1_000};
  final LogLimit limit = new LogLimit(() -> now[0], 60);

  @Test
  void theFirstOccurrenceIsLoggedTheNextOnesOfTheIntervalAreCounted() {
    assertThat(limit.tryLog()).isZero();
    now[0] += 59;
    assertThat(limit.tryLog()).isEqualTo(-1);
    assertThat(limit.tryLog()).isEqualTo(-1);
  }

  @Test
  void afterTheIntervalTheNextOneIsLoggedWithHowManyWereLeftOut() {
    limit.tryLog();
    limit.tryLog();
    limit.tryLog();
    now[0] += 60;
    assertThat(limit.tryLog()).isEqualTo(2);
    assertThat(limit.tryLog()).isEqualTo(-1);
    now[0] += 60;
    assertThat(limit.tryLog()).isEqualTo(1);
  }
}
