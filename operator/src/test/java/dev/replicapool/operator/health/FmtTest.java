package dev.replicapool.operator.health;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FmtTest {
  @Test
  void showsAsManyDecimalsAsTheReferenceAndAtLeastTwo() {
    assertThat(Fmt.like(0.2, 0.05)).isEqualTo("0.20");
    assertThat(Fmt.like(0.1234, 0.125)).isEqualTo("0.123");
  }

  @Test
  void addsDecimalsUntilValueAndThresholdDiffer() {
    // One failure on top of an earlier, decayed one: just above the threshold.
    assertThat(Fmt.like(0.0500731, 0.05)).isEqualTo("0.0501");
    assertThat(Fmt.like(0.05, 0.05)).isEqualTo("0.05");
  }
}
