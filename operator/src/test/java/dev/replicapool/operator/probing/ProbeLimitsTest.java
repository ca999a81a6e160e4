package dev.replicapool.operator.probing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProbeLimitsTest {

  @Test
  void admitsUpToMaxInFlightAndAgainAfterARelease() {
    ProbeLimits limits = new ProbeLimits(2, 2);
    assertThat(limits.tryAcquire(false)).isTrue();
    assertThat(limits.tryAcquire(false)).isTrue();
    assertThat(limits.tryAcquire(false)).isFalse();
    assertThat(limits.inFlight()).isEqualTo(2);

    limits.release(false);

    assertThat(limits.inFlight()).isEqualTo(1);
    assertThat(limits.tryAcquire(false)).isTrue();
  }

  @Test
  void connectsAreLimitedButConnectedProbesAreNot() {
    ProbeLimits limits = new ProbeLimits(10, 1);
    assertThat(limits.tryAcquire(true)).isTrue();
    assertThat(limits.tryAcquire(true)).isFalse();
    assertThat(limits.tryAcquire(false)).isTrue();
    assertThat(limits.inFlight()).isEqualTo(2);
    assertThat(limits.connecting()).isEqualTo(1);

    limits.release(true);

    assertThat(limits.connecting()).isZero();
    assertThat(limits.tryAcquire(true)).isTrue();
  }

  @Test
  void aConnectNeedsAPlaceInFlightToo() {
    ProbeLimits limits = new ProbeLimits(1, 5);
    assertThat(limits.tryAcquire(false)).isTrue();
    assertThat(limits.tryAcquire(true)).isFalse();
    assertThat(limits.connecting()).isZero();
  }
}
