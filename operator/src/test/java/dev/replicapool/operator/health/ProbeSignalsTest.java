package dev.replicapool.operator.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ProbeSignalsTest {
  private final ProbeSignals s = new ProbeSignals(MemberHealthTest.adaptive());

  @Test
  void aPassStartsAStreakAtItsTimeAndAFailureEndsIt() {
    s.passed(20, 1_000);
    s.passed(20, 2_000);
    assertThat(s.consecutiveSuccesses()).isEqualTo(2);
    assertThat(s.streakStartMillis()).hasValue(1_000L);

    s.failed(1, null);
    assertThat(s.consecutiveSuccesses()).isZero();
    assertThat(s.consecutiveFailures()).isEqualTo(1);
    assertThat(s.streakStartMillis()).isEmpty();

    s.passed(20, 5_000);
    assertThat(s.consecutiveFailures()).isZero();
    assertThat(s.streakStartMillis()).hasValue(5_000L);
  }

  @Test
  void theErrorRateRisesByAlphaPerFailureAndDecaysPerPass() {
    s.failed(1, null);
    assertThat(s.errorRate()).isEqualTo(0.05);
    s.passed(20, 0);
    assertThat(s.errorRate()).isCloseTo(0.0475, within(1e-12));
  }

  @Test
  void fastFailuresAreNoLatencySampleButTimeoutsAre() {
    s.failed(3, null);
    assertThat(s.latencies().p95()).isEmpty();
    s.failed(500, null); // the adaptive defaults' timeout
    assertThat(s.latencies().p95()).hasValue(500L);
  }

  @Test
  void degradedCausesInOrderTwoFailuresThenErrorRateThenP95() {
    assertThat(s.degradedCause(0)).isEmpty();
    s.failed(1, null);
    assertThat(s.degradedCause(0)).isEmpty(); // 0.05 is not above 0.05
    s.failed(1, null);
    assertThat(s.degradedCause(0)).hasValue("2 probes failed in a row");
    s.passed(20, 0);
    assertThat(s.degradedCause(0)).hasValue("error rate 0.09 > 0.05");
  }

  @Test
  void aSlowP95IsDegradedNamingItsNumbers() {
    for (int i = 0; i < 20; i++) {
      s.passed(250, i);
    }
    assertThat(s.degradedCause(0)).hasValue("p95 250ms > 2.0 x 100ms");
  }

  @Test
  void startupFailuresLeaveNoTraceAndAStartupPassClearsTheErrorRate() {
    s.failed(1, null);
    s.failedAtStartup(null);
    assertThat(s.consecutiveFailures()).isEqualTo(2);
    assertThat(s.errorRate()).isEqualTo(0.05);
    assertThat(s.latencies().p95()).isEmpty();

    s.passedAtStartup(7);
    assertThat(s.consecutiveFailures()).isZero();
    assertThat(s.consecutiveSuccesses()).isEqualTo(1);
    assertThat(s.errorRate()).isZero();
    assertThat(s.latencies().p95()).hasValue(7L);
    assertThat(s.streakStartMillis()).as("no streak start before routable").isEmpty();
  }
}
