package dev.replicapool.operator.health;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RecoveryTest {
  private final Recovery r = new Recovery(1_000);

  @Test
  void goodFromCreationUntilSomethingIsNot() {
    assertThat(r.heldFor(500, 1_499)).isFalse();
    assertThat(r.heldFor(500, 1_500)).isTrue();
    r.observe(false, 2_000);
    assertThat(r.heldFor(0, 2_000)).isFalse();
  }

  @Test
  void goodResultsKeepTheEarliestStart() {
    r.notGood();
    r.observe(true, 3_000);
    r.observe(true, 3_500);
    assertThat(r.heldFor(1_000, 3_999)).isFalse();
    assertThat(r.heldFor(1_000, 4_000)).isTrue();
  }

  @Test
  void goodFromRestartsTheHold() {
    r.goodFrom(5_000);
    assertThat(r.heldFor(100, 5_050)).isFalse();
    assertThat(r.heldFor(100, 5_100)).isTrue();
  }

  @Test
  void theRampStartsNowWithoutAPendingStart() {
    assertThat(r.rampStartMillis()).isEmpty();
    r.startRamp(7_000);
    assertThat(r.rampStartMillis()).hasValue(7_000L);
  }

  @Test
  void aPendingStartIsUsedAndTheLatestPendingWins() {
    r.rampFrom(2_000);
    r.rampFrom(1_500);
    r.startRamp(9_000);
    assertThat(r.rampStartMillis()).hasValue(2_000L);

    r.rampFrom(3_000);
    r.rampFrom(4_000);
    r.startRamp(9_500);
    assertThat(r.rampStartMillis()).hasValue(4_000L);
  }

  @Test
  void cancellingDropsTheRampAndWhatWasPending() {
    r.rampFrom(2_000);
    r.startRamp(3_000);
    r.rampFrom(4_000);
    r.cancelRamp();
    assertThat(r.rampStartMillis()).isEmpty();
    r.startRamp(6_000);
    assertThat(r.rampStartMillis()).hasValue(6_000L);
  }
}
