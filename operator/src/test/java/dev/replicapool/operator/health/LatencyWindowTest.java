package dev.replicapool.operator.health;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LatencyWindowTest {

  @Test
  void emptyBeforeTheFirstSample() {
    LatencyWindow w = new LatencyWindow(20, 0.1);
    assertThat(w.p95()).isEmpty();
    assertThat(w.score()).isEmpty();
  }

  @Test
  void theFirstSampleIsTheScoreAndEachNextOneMovesItByAlpha() {
    LatencyWindow w = new LatencyWindow(20, 0.1);
    w.record(100);
    assertThat(w.score()).hasValue(100.0);
    w.record(200);
    assertThat(w.score()).hasValue(110.0);
    w.record(110);
    assertThat(w.score()).hasValue(110.0);
  }

  @Test
  void p95IsTheNearestRankOfTheSamplesHeld() {
    LatencyWindow w = new LatencyWindow(20, 0.1);
    for (int i = 1; i <= 20; i++) {
      w.record(i * 10L);
    }
    assertThat(w.p95()).hasValue(190L); // rank ceil(0.95 x 20) = 19
    w.record(5);
    assertThat(w.p95()).as("the oldest sample (10) left").hasValue(190L);
    w.record(1_000);
    assertThat(w.p95()).hasValue(200L);
  }

  @Test
  void aWindowOfOneHoldsTheLastSample() {
    LatencyWindow w = new LatencyWindow(1, 1.0);
    w.record(30);
    w.record(7);
    assertThat(w.p95()).hasValue(7L);
    assertThat(w.score()).hasValue(7.0);
  }

  @Test
  void negativeSamplesCountAsZero() {
    LatencyWindow w = new LatencyWindow(5, 0.1);
    w.record(-3);
    assertThat(w.p95()).hasValue(0L);
    assertThat(w.score()).hasValue(0.0);
  }
}
