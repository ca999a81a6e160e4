package dev.replicapool.operator.health;

import static dev.replicapool.api.v1alpha1.MemberState.Degraded;
import static dev.replicapool.api.v1alpha1.MemberState.Healthy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Saturation, the third Degraded signal: reported utilization at or above {@code
 * degradedUtilization} in {@value HealthPolicy#SATURATED_REPORTS} fresh reports in a row; out
 * through the same hold of good results as latency and errors. Transition by transition, on the
 * injected clock (interval 1 s, hold 30 s, reports count 3 s).
 */
class MemberSaturationTest {
  private static final long T0 = 1_700_000_000_000L;

  private final MutableClock clock = new MutableClock(T0);

  private static HealthPolicy policy(Double degradedUtilization) {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.routing.policy = RoutingPolicy.Adaptive;
    spec.healthCheck.degradedUtilization = degradedUtilization;
    return HealthPolicy.from(spec);
  }

  private final MemberHealth m = new MemberHealth(policy(0.9), clock);

  /** A passing 10 ms probe one interval after the last, reporting {@code utilization}. */
  private Optional<Transition> probe(MemberHealth member, Double utilization) {
    clock.advance(member.policy().intervalMillis());
    return member.onProbe(true, 10, null, utilization);
  }

  @Test
  void theFieldResolvesIntoThePolicyAndUnsetIsOff() {
    assertThat(policy(0.9).degradedUtilization()).isEqualTo(0.9);
    assertThat(policy(0.9).saturationChecked()).isTrue();
    assertThat(policy(null).saturationChecked()).isFalse();
    assertThat(policy(0.9).utilizationMaxAgeMillis()).isEqualTo(3_000);
  }

  @Test
  void oneSaturatedReportIsNotEnoughTheSecondInARowDegrades() {
    assertThat(probe(m, 0.97)).isEmpty();
    assertThat(m.state()).isEqualTo(Healthy);
    assertThat(m.utilization()).isEqualTo(0.97);

    Transition t = probe(m, 0.95).orElseThrow();
    assertThat(t.from()).isEqualTo(Healthy);
    assertThat(t.to()).isEqualTo(Degraded);
    assertThat(t.reason()).isEqualTo("saturated: utilization 0.95 >= 0.90");
    assertThat(m.reason()).isEqualTo("saturated: utilization 0.95 >= 0.90");
    // Adaptive: the saturated member's base weight is halved.
    assertThat(m.weight()).isEqualTo(HealthPolicy.SATURATED_WEIGHT_FACTOR);
  }

  @Test
  void exactlyAtTheThresholdIsSaturated() {
    probe(m, 0.9);
    assertThat(probe(m, 0.9))
        .map(Transition::reason)
        .hasValue("saturated: utilization 0.90 >= 0.90");
  }

  @Test
  void aReportBelowInBetweenRestartsTheCount() {
    probe(m, 0.97);
    probe(m, 0.5);
    assertThat(probe(m, 0.97)).isEmpty();
    assertThat(m.state()).isEqualTo(Healthy);
  }

  @Test
  void staysDegradedWhileSaturatedAndTheReasonFollowsTheLastReport() {
    probe(m, 0.97);
    probe(m, 0.97);
    assertThat(m.state()).isEqualTo(Degraded);
    for (int i = 0; i < 60; i++) {
      assertThat(probe(m, 0.99)).isEmpty();
    }
    assertThat(m.state()).isEqualTo(Degraded);
    assertThat(m.reason()).isEqualTo("saturated: utilization 0.99 >= 0.90");
  }

  @Test
  void recoversOnlyAfterTheHoldOfUnsaturatedReports() {
    probe(m, 0.97);
    probe(m, 0.97);
    long hold = m.policy().recoverAfterMillis();
    assertThat(probe(m, 0.4)).isEmpty(); // the condition ends; the hold starts
    assertThat(m.state()).isEqualTo(Degraded);
    assertThat(m.reason()).startsWith("recovering");
    assertThat(m.weight()).isEqualTo(1.0);
    for (long waited = 1_000; waited < hold; waited += 1_000) {
      assertThat(probe(m, 0.4)).as("after %d ms", waited).isEmpty();
    }
    Transition t = probe(m, 0.4).orElseThrow();
    assertThat(t.to()).isEqualTo(Healthy);
    assertThat(t.reason()).isEqualTo("recovered after " + hold + "ms of good results");
  }

  @Test
  void aSaturatedReportDuringTheHoldStartsItAgain() {
    probe(m, 0.97);
    probe(m, 0.97);
    for (int i = 0; i < 20; i++) {
      probe(m, 0.4);
    }
    probe(m, 0.97);
    probe(m, 0.97); // saturated again: the 20 s of good results do not count any more
    for (int i = 0; i < 20; i++) {
      assertThat(probe(m, 0.4)).isEmpty();
    }
    assertThat(m.state()).isEqualTo(Degraded);
  }

  @Test
  void staleReportsStopCountingAndTheLastOneLeavesTheStatus() {
    probe(m, 0.97);
    probe(m, 0.97);
    assertThat(m.state()).isEqualTo(Degraded);
    // Answers without a report: the last one counts for 3 intervals, then not at all.
    probe(m, null);
    probe(m, null);
    probe(m, null);
    assertThat(m.utilization()).isEqualTo(0.97);
    assertThat(m.reason()).startsWith("saturated");
    probe(m, null);
    assertThat(m.utilization()).isNull();
    assertThat(m.snapshot().applyTo(new EndpointStatus()).utilization).isNull();
    assertThat(m.reason()).startsWith("recovering");
    // A report after a stale one starts the count again: one alone does not degrade.
    long hold = m.policy().recoverAfterMillis();
    for (long waited = 1_000; waited < hold; waited += 1_000) {
      probe(m, null);
    }
    assertThat(probe(m, null)).map(Transition::to).hasValue(Healthy);
    clock.advance(10_000);
    assertThat(m.onProbe(true, 10, null, 0.97)).isEmpty();
    assertThat(m.state()).isEqualTo(Healthy);
  }

  @Test
  void aStaleReportAfterAGapDoesNotChainWithANewOne() {
    probe(m, 0.97);
    clock.advance(5_000); // no probe for 5 s: the first report is stale
    assertThat(probe(m, 0.97)).isEmpty();
    assertThat(m.state()).isEqualTo(Healthy);
  }

  @Test
  void aMemberThatNeverReportsIsJudgedAsBefore() {
    for (int i = 0; i < 50; i++) {
      assertThat(probe(m, null)).isEmpty();
    }
    assertThat(m.state()).isEqualTo(Healthy);
    assertThat(m.weight()).isEqualTo(1.0);
    assertThat(m.utilization()).isNull();
    assertThat(m.snapshot().utilization()).isNull();
  }

  @Test
  void withoutTheFieldReportsShowInStatusButNeverDegrade() {
    MemberHealth off = new MemberHealth(policy(null), clock);
    for (int i = 0; i < 10; i++) {
      assertThat(probe(off, 1.0)).isEmpty();
    }
    assertThat(off.state()).isEqualTo(Healthy);
    assertThat(off.snapshot().applyTo(new EndpointStatus()).utilization).isEqualTo(1.0);
  }

  @Test
  void statusShowsTheLastUtilizationRoundedToHundredths() {
    probe(m, 0.4567);
    assertThat(m.snapshot().applyTo(new EndpointStatus()).utilization).isEqualTo(0.46);
  }

  @Test
  void failuresComeBeforeSaturationInTheReason() {
    clock.advance(1_000);
    m.onProbe(false, 10, "HTTP 500", 0.97);
    clock.advance(1_000);
    Optional<Transition> t = m.onProbe(false, 10, "HTTP 500", 0.97);
    assertThat(m.state()).isEqualTo(Degraded);
    assertThat(m.reason()).startsWith("2 probes failed in a row");
    assertThat(t).map(Transition::to).hasValue(Degraded);
  }
}
