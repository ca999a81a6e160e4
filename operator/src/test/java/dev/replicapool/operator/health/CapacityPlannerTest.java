package dev.replicapool.operator.health;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.Capacity;
import dev.replicapool.api.v1alpha1.CapacityStatus;
import org.junit.jupiter.api.Test;

class CapacityPlannerTest {

  /** S1's capacity inputs (docs/SCENARIOS.md); the s1* tests check S1's figures. */
  private static Capacity s1Capacity() {
    Capacity c = new Capacity();
    c.peakRequestsPerSecond = 513.89;
    c.perReplicaRequestsPerSecond = 400.0;
    c.targetUtilization = 0.5;
    return c;
  }

  @Test
  void s1WithThreeReplicasIsAtRisk() {
    CapacityPlanner.Plan plan = CapacityPlanner.plan(s1Capacity(), 3, 200, 200);
    CapacityStatus s = plan.status();
    assertThat(s.minReplicas).isEqualTo(3);
    assertThat(s.safeRequestsPerSecondPerReplica).isEqualTo(200.0);
    assertThat(s.perReplicaRequestsPerSecond).isEqualTo(171.30);
    assertThat(s.utilization).isEqualTo(0.428);
    assertThat(s.perReplicaRequestsPerSecondAfterOneFailure).isEqualTo(256.94);
    assertThat(s.utilizationAfterOneFailure).isEqualTo(0.642);
    assertThat(s.healthCheckRequestsPerSecond).isEqualTo(15.0);
    assertThat(s.droppedRequestsPerFailure).isEqualTo(34.26);
    assertThat(plan.atRisk()).isTrue();
    assertThat(plan.message()).isEqualTo("one more failure puts utilization at 0.642 > 0.5");
  }

  @Test
  void s1WithFourReplicasSurvivesOneFailure() {
    CapacityPlanner.Plan plan = CapacityPlanner.plan(s1Capacity(), 4, 200, 200);
    CapacityStatus s = plan.status();
    assertThat(s.minReplicas).isEqualTo(3);
    assertThat(s.perReplicaRequestsPerSecond).isEqualTo(128.47);
    assertThat(s.utilization).isEqualTo(0.321);
    assertThat(s.perReplicaRequestsPerSecondAfterOneFailure).isEqualTo(171.30);
    assertThat(s.utilizationAfterOneFailure).isEqualTo(0.428);
    assertThat(s.healthCheckRequestsPerSecond).isEqualTo(20.0);
    assertThat(plan.atRisk()).isFalse();
    assertThat(plan.message()).isEqualTo("one more failure keeps utilization at 0.428 <= 0.5");
  }

  @Test
  void whatTheMembersReportCanPutAPoolThePlanFindsSafeAtRisk() {
    CapacityPlanner.Plan calm = CapacityPlanner.plan(s1Capacity(), 4, 4, 200, 200, 0.3);
    assertThat(calm.atRisk()).isFalse();
    assertThat(calm.status().reportedUtilization).isEqualTo(0.3);
    assertThat(calm.status().reportedUtilizationAfterOneFailure).isEqualTo(0.4);
    assertThat(calm.message())
        .isEqualTo(
            "one more failure keeps utilization at 0.428 <= 0.5; reported utilization 0.3, 0.4"
                + " after one failure");

    CapacityPlanner.Plan busyAfter = CapacityPlanner.plan(s1Capacity(), 4, 4, 200, 200, 0.45);
    assertThat(busyAfter.atRisk()).as("0.45 x 4 / 3 = 0.6").isTrue();
    assertThat(busyAfter.status().utilization).as("the plan's figures stay").isEqualTo(0.321);
    assertThat(busyAfter.message())
        .isEqualTo("one more failure puts reported utilization at 0.6 > 0.5");

    CapacityPlanner.Plan busyNow = CapacityPlanner.plan(s1Capacity(), 4, 4, 200, 200, 0.7);
    assertThat(busyNow.atRisk()).isTrue();
    assertThat(busyNow.message())
        .isEqualTo("reported utilization 0.7 > 0.5 already with 4 routable");

    CapacityPlanner.Plan planAtRisk = CapacityPlanner.plan(s1Capacity(), 3, 3, 200, 200, 0.1);
    assertThat(planAtRisk.message())
        .as("the plan's own risk is said first; the reports are still shown")
        .isEqualTo("one more failure puts utilization at 0.642 > 0.5");
    assertThat(planAtRisk.status().reportedUtilization).isEqualTo(0.1);

    assertThat(
            CapacityPlanner.plan(s1Capacity(), 4, 4, 200, 200, null).status().reportedUtilization)
        .as("not every routable member reports")
        .isNull();
  }

  @Test
  void droppedRequestsScaleWithDetectionTime() {
    // S1's comparison: 10 minutes of manual recovery instead of a 200 ms check.
    CapacityStatus s = CapacityPlanner.plan(s1Capacity(), 3, 200, 600_000).status();
    assertThat(s.droppedRequestsPerFailure).isEqualTo(102_778.0);
  }

  @Test
  void belowMinimumIsAtRiskAlready() {
    CapacityPlanner.Plan plan = CapacityPlanner.plan(s1Capacity(), 2, 200, 200);
    assertThat(plan.status().utilization).isEqualTo(0.642);
    assertThat(plan.atRisk()).isTrue();
    assertThat(plan.message())
        .isEqualTo("utilization 0.642 > 0.5 already with 2 routable; 3 needed at peak");
  }

  @Test
  void oneMemberLeavesNothingAfterAFailure() {
    Capacity c = s1Capacity();
    c.peakRequestsPerSecond = 100.0;
    CapacityPlanner.Plan plan = CapacityPlanner.plan(c, 1, 200, 200);
    assertThat(plan.status().minReplicas).isEqualTo(1);
    assertThat(plan.status().utilization).isEqualTo(0.25);
    assertThat(plan.status().perReplicaRequestsPerSecondAfterOneFailure).isNull();
    assertThat(plan.status().utilizationAfterOneFailure).isNull();
    assertThat(plan.atRisk()).isTrue();
    assertThat(plan.message()).isEqualTo("one more failure leaves no routable member");
  }

  @Test
  void noRoutableMemberCountsTheMinimumWithoutDividingByZero() {
    CapacityPlanner.Plan plan = CapacityPlanner.plan(s1Capacity(), 0, 200, 200);
    assertThat(plan.status().perReplicaRequestsPerSecond).isEqualTo(171.30);
    assertThat(plan.status().healthCheckRequestsPerSecond).isEqualTo(0.0);
    assertThat(plan.atRisk()).isTrue();
    assertThat(plan.message()).isEqualTo("no routable member; 3 needed at peak");
  }

  @Test
  void exactMultipleDoesNotRoundUp() {
    Capacity c = s1Capacity();
    c.peakRequestsPerSecond = 600.0;
    assertThat(CapacityPlanner.plan(c, 4, 1000, 1000).status().minReplicas).isEqualTo(3);
  }

  @Test
  void healthCheckOffCostsNothing() {
    assertThat(CapacityPlanner.plan(s1Capacity(), 3, 0, 0).status().healthCheckRequestsPerSecond)
        .isEqualTo(0.0);
  }

  @Test
  void zeroPeakIsNeverAtRisk() {
    Capacity c = s1Capacity();
    c.peakRequestsPerSecond = 0.0;
    CapacityPlanner.Plan plan = CapacityPlanner.plan(c, 1, 1000, 1000);
    assertThat(plan.atRisk()).isFalse();
    assertThat(plan.status().minReplicas).isEqualTo(1);
  }
}
