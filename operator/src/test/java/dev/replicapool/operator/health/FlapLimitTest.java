package dev.replicapool.operator.health;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FlapLimitTest {
  @Test
  void allowsThreeRecoveriesInAMinuteThenHoldsUntilTheOldestLeavesTheWindow() {
    FlapLimit limit = new FlapLimit(3);
    for (long t : new long[] {0, 1_000, 2_000}) {
      assertThat(limit.allows(t)).isTrue();
      limit.recovered(t);
    }
    assertThat(limit.allows(3_000)).isFalse();
    assertThat(limit.allows(59_999)).isFalse();
    assertThat(limit.allows(60_000)).as("the first left the window").isTrue();
    limit.recovered(60_000);
    assertThat(limit.allows(60_500)).isFalse();
    assertThat(limit.allows(61_000)).isTrue();
  }

  @Test
  void oneRecoveryAMinuteWhenConfiguredSo() {
    FlapLimit limit = new FlapLimit(1);
    assertThat(limit.allows(0)).isTrue();
    limit.recovered(0);
    assertThat(limit.allows(59_999)).isFalse();
    assertThat(limit.allows(60_000)).isTrue();
  }

  @Test
  void theReasonSaysWhyWithoutACountdown() {
    assertThat(new FlapLimit(3).heldReason())
        .isEqualTo(
            "held for flapping: 3 recoveries within 60s, the most a member gets"
                + " (healthCheck.maxRecoveriesPerMinute)");
    assertThat(new FlapLimit(1).heldReason()).startsWith("held for flapping: 1 recovery within");
  }
}
