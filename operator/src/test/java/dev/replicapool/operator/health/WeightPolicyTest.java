package dev.replicapool.operator.health;

import static dev.replicapool.api.v1alpha1.MemberState.Degraded;
import static dev.replicapool.api.v1alpha1.MemberState.Draining;
import static dev.replicapool.api.v1alpha1.MemberState.Healthy;
import static dev.replicapool.api.v1alpha1.MemberState.Pending;
import static dev.replicapool.api.v1alpha1.MemberState.Unhealthy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberState;
import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class WeightPolicyTest {
  private static final OptionalDouble NO_SCORE = OptionalDouble.empty();
  private static final OptionalLong NO_RAMP = OptionalLong.empty();

  private final HealthPolicy adaptive = MemberHealthTest.adaptive(); // baseline 100, 10 s ramp
  private final HealthPolicy roundRobin = HealthPolicy.defaults();

  @Test
  void roundsToTwoDecimalsHalfUp() {
    assertThat(WeightPolicy.round(0.996)).isEqualTo(1.0);
    assertThat(WeightPolicy.round(0.994)).isEqualTo(0.99);
    assertThat(WeightPolicy.round(0.125)).isEqualTo(0.13);
    assertThat(WeightPolicy.round(0.0)).isZero();
  }

  @Test
  void onlyHealthyAndDegradedMembersWeighAnything() {
    for (MemberState s : List.of(Unhealthy, Draining, Pending)) {
      assertThat(WeightPolicy.weight(adaptive, s, NO_SCORE, 0, false, NO_RAMP, 0))
          .as("%s", s)
          .isZero();
    }
    assertThat(WeightPolicy.weight(adaptive, Healthy, NO_SCORE, 0, false, NO_RAMP, 0))
        .isEqualTo(1.0);
    assertThat(WeightPolicy.weight(adaptive, Degraded, NO_SCORE, 0, false, NO_RAMP, 0))
        .isEqualTo(1.0);
  }

  @Test
  void adaptiveSubtractsTheLatencyAndErrorPenalties() {
    assertThat(WeightPolicy.weight(adaptive, Healthy, OptionalDouble.of(150), 0, false, NO_RAMP, 0))
        .isEqualTo(0.5);
    assertThat(WeightPolicy.weight(adaptive, Healthy, OptionalDouble.of(80), 0, false, NO_RAMP, 0))
        .as("faster than the baseline earns nothing")
        .isEqualTo(1.0);
    assertThat(WeightPolicy.weight(adaptive, Healthy, NO_SCORE, 0.05, false, NO_RAMP, 0))
        .isEqualTo(0.5);
    assertThat(
            WeightPolicy.weight(adaptive, Healthy, OptionalDouble.of(120), 0.03, false, NO_RAMP, 0))
        .isEqualTo(0.5);
  }

  @Test
  void neverBelowMinWeight() {
    assertThat(
            WeightPolicy.weight(adaptive, Healthy, OptionalDouble.of(900), 0.5, false, NO_RAMP, 0))
        .isEqualTo(adaptive.minWeight());
  }

  @Test
  void roundRobinCarriesNoPenalty() {
    assertThat(
            WeightPolicy.weight(
                roundRobin, Degraded, OptionalDouble.of(900), 0.5, false, NO_RAMP, 0))
        .isEqualTo(1.0);
  }

  @Test
  void theRampRisesLinearlyFromTenPercentOverTheSlowStartWindow() {
    OptionalLong ramp = OptionalLong.of(1_000);
    long window = roundRobin.slowStartMillis();
    assertThat(WeightPolicy.rampFactor(roundRobin, ramp, 1_000)).isEqualTo(0.1);
    assertThat(WeightPolicy.rampFactor(roundRobin, ramp, 1_000 + window / 2)).isEqualTo(0.5);
    assertThat(WeightPolicy.rampFactor(roundRobin, ramp, 1_000 + window)).isEqualTo(1.0);
    assertThat(
            WeightPolicy.weight(roundRobin, Degraded, NO_SCORE, 0, false, ramp, 1_000 + window / 5))
        .isEqualTo(0.2);
    assertThat(WeightPolicy.rampFactor(roundRobin, NO_RAMP, 1_000)).isEqualTo(1.0);
  }

  @Test
  void aWindowOfZeroMeansNoRamp() {
    HealthPolicy noRamp = roundRobin.withRecovery(0, 0);
    assertThat(WeightPolicy.rampFactor(noRamp, OptionalLong.of(1_000), 1_000)).isEqualTo(1.0);
  }

  @Test
  void theRampMultipliesThePenaltyWeightAndKeepsTheFloor() {
    OptionalLong ramp = OptionalLong.of(0);
    assertThat(
            WeightPolicy.weight(adaptive, Degraded, OptionalDouble.of(150), 0, false, ramp, 5_000))
        .isEqualTo(0.25);
    assertThat(WeightPolicy.weight(adaptive, Degraded, OptionalDouble.of(150), 0, false, ramp, 0))
        .isEqualTo(0.1);
  }
}
