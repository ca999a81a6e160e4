package dev.replicapool.dataplane.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class PeakEwmaLoadTest {
  @Test
  void utilizationFactorGrowsAsAQueuesWaitCappedNearCapacityThenWithTheQueue() {
    assertThat(PeakEwmaLoad.utilizationFactor(Double.NaN)).as("no report").isEqualTo(1);
    assertThat(PeakEwmaLoad.utilizationFactor(0)).isEqualTo(1);
    assertThat(PeakEwmaLoad.utilizationFactor(0.5)).isCloseTo(2, within(1e-9));
    assertThat(PeakEwmaLoad.utilizationFactor(0.9)).isCloseTo(10, within(1e-9));
    assertThat(PeakEwmaLoad.utilizationFactor(0.99)).isEqualTo(PeakEwmaLoad.MAX_FACTOR);
    assertThat(PeakEwmaLoad.utilizationFactor(1)).isEqualTo(PeakEwmaLoad.MAX_FACTOR);
    assertThat(PeakEwmaLoad.utilizationFactor(1.5))
        .as("past capacity, a queue: grows with it")
        .isEqualTo(1.5 * PeakEwmaLoad.MAX_FACTOR);
    assertThat(PeakEwmaLoad.utilizationFactor(3)).isEqualTo(3 * PeakEwmaLoad.MAX_FACTOR);
  }

  @Test
  void aReportCountsUntilItIsTooOld() {
    Endpoint e =
        new Endpoint(
            "10.0.0.1",
            80,
            1.0,
            dev.replicapool.api.v1alpha1.MemberState.Healthy,
            new PeakEwma(10_000, 1, 0));
    assertThat(e.utilization(0)).isNaN();
    e.reportUtilization(0.8, 1_000);
    assertThat(e.utilization(1_000 + Endpoint.REPORT_TTL_NANOS)).isEqualTo(0.8);
    assertThat(e.utilization(1_001 + Endpoint.REPORT_TTL_NANOS)).isNaN();
  }
}
