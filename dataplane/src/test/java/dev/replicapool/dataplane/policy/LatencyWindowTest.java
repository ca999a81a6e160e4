package dev.replicapool.dataplane.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Percentiles of recent answer times, window by window. */
class LatencyWindowTest {
  static final long MS = 1_000_000L;
  final FakeClock clock = new FakeClock();

  @Test
  void tooFewSamplesGiveTheFallback() {
    LatencyWindow w = new LatencyWindow(clock::getAsLong);
    for (int i = 0; i < 99; i++) {
      w.record(MS);
    }
    assertThat(w.percentile(95, 100, 42)).isEqualTo(42);
  }

  @Test
  void aPercentileIsWithinTenPercentAboveTheTrueValue() {
    LatencyWindow w = new LatencyWindow(clock::getAsLong);
    for (int i = 1; i <= 1_000; i++) {
      w.record(i * 10_000L); // 10 µs .. 10 ms evenly
    }
    long p95 = w.percentile(95, 100, 0);
    assertThat(p95).isBetween(9_500_000L, 10_450_000L);
    clock.advanceMillis(300);
    long p50 = w.percentile(50, 100, 0);
    assertThat(p50).isBetween(5_000_000L, 5_500_000L);
  }

  @Test
  void oldWindowsAgeOut() {
    LatencyWindow w = new LatencyWindow(clock::getAsLong);
    for (int i = 0; i < 200; i++) {
      w.record(100 * MS);
    }
    clock.advanceMillis(10_000);
    for (int i = 0; i < 200; i++) {
      w.record(MS);
    }
    assertThat(w.percentile(90, 100, 0)).as("both windows count").isGreaterThan(50 * MS);
    clock.advanceMillis(10_000);
    for (int i = 0; i < 200; i++) {
      w.record(MS);
    }
    assertThat(w.percentile(90, 100, 0))
        .as("the 100 ms answers are two windows old")
        .isLessThan(2 * MS);
  }

  @Test
  void bucketsCoverTheRangeAndBoundTheirValues() {
    assertThat(LatencyWindow.bucket(1)).isZero();
    assertThat(LatencyWindow.bucket(Long.MAX_VALUE)).isEqualTo(LatencyWindow.BUCKETS - 1);
    for (long n : new long[] {20_000, 1_000_000, 123_456_789}) {
      int b = LatencyWindow.bucket(n);
      assertThat(LatencyWindow.upperBound(b)).isGreaterThanOrEqualTo(n);
      assertThat(LatencyWindow.upperBound(b - 1)).isLessThan(n);
    }
  }
}
