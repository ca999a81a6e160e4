package dev.replicapool.operator.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LeaseWatchTest {
  static final long T0 = 1_800_000_000_000L;
  final LeaseWatch watch = new LeaseWatch();

  void samples(boolean watching, long from, long to) {
    for (long t = from; t <= to; t += 20) {
      watch.sample(watching, t);
    }
  }

  @Test
  void neverSampledVouchesForNothing() {
    assertThat(watch.liveThroughout(T0, T0)).isFalse();
    assertThat(watch.deliveredSince(T0 - 10_000)).isFalse();
  }

  @Test
  void downToLiveVouchesFromTheFirstLiveSampleOn() {
    samples(false, T0, T0 + 100);
    samples(true, T0 + 120, T0 + 1_000);
    assertThat(watch.liveThroughout(T0 + 120, T0 + 1_000)).isTrue();
    assertThat(watch.liveThroughout(T0 + 119, T0 + 1_000)).isFalse();
  }

  @Test
  void liveToDownVouchesForNothingUntilLiveAgain() {
    samples(true, T0, T0 + 1_000);
    watch.sample(false, T0 + 1_020);
    assertThat(watch.liveThroughout(T0, T0 + 1_020)).isFalse();
    samples(true, T0 + 1_040, T0 + 2_000);
    // Live again, but only since the gap: what was said during it was not heard.
    assertThat(watch.liveThroughout(T0, T0 + 2_000)).isFalse();
    assertThat(watch.liveThroughout(T0 + 1_040, T0 + 2_000)).isTrue();
  }

  @Test
  void aStretchNobodySampledStartsTheRunAnew() {
    samples(true, T0, T0 + 500);
    watch.sample(true, T0 + 500 + LeaseWatch.MAX_SAMPLE_GAP_MILLIS + 1);
    assertThat(watch.liveThroughout(T0, T0 + 700)).isFalse();
    assertThat(watch.liveThroughout(T0 + 500 + LeaseWatch.MAX_SAMPLE_GAP_MILLIS + 1, T0 + 700))
        .isTrue();
  }

  @Test
  void aSamplerThatStoppedCannotVouchForNow() {
    samples(true, T0, T0 + 500);
    assertThat(watch.liveThroughout(T0, T0 + 500 + LeaseWatch.MAX_SAMPLE_GAP_MILLIS)).isTrue();
    assertThat(watch.liveThroughout(T0, T0 + 500 + LeaseWatch.MAX_SAMPLE_GAP_MILLIS + 1)).isFalse();
  }

  @Test
  void deliveredSinceIsTheLatestEvent() {
    watch.eventDelivered(T0 + 300);
    watch.eventDelivered(T0 + 100);
    assertThat(watch.deliveredSince(T0 + 300)).isTrue();
    assertThat(watch.deliveredSince(T0 + 301)).isFalse();
  }
}
