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
    Endpoint e = endpoint();
    assertThat(e.utilization(0)).isNaN();
    e.reportLoad(0.8, Double.NaN, 1_000);
    assertThat(e.utilization(1_000 + Endpoint.REPORT_TTL_NANOS)).isEqualTo(0.8);
    assertThat(e.utilization(1_001 + Endpoint.REPORT_TTL_NANOS)).isNaN();
  }

  @Test
  void aMembersOwnInFlightCountFadesOverASecond() {
    Endpoint e = endpoint();
    assertThat(e.reportedInFlight(0)).as("never said").isNaN();
    e.reportLoad(0.5, Double.NaN, 1_000);
    assertThat(e.reportedInFlight(1_000)).as("a report without it").isNaN();
    e.reportLoad(0.5, 8, 1_000);
    assertThat(e.reportedInFlight(1_000)).isEqualTo(8);
    assertThat(e.reportedInFlight(1_000 + Endpoint.IN_FLIGHT_FADE_NANOS / 4))
        .isCloseTo(6, within(1e-9));
    assertThat(e.reportedInFlight(1_000 + Endpoint.IN_FLIGHT_FADE_NANOS / 2))
        .isCloseTo(4, within(1e-9));
    assertThat(e.reportedInFlight(1_000 + Endpoint.IN_FLIGHT_FADE_NANOS)).as("faded").isNaN();
    assertThat(e.utilization(1_000 + Endpoint.IN_FLIGHT_FADE_NANOS))
        .as("its utilization still counts")
        .isEqualTo(0.5);
    assertThat(e.reportedInFlight(0)).as("a clock read before the report").isEqualTo(8);
  }

  @Test
  void theLoadCountsTheMembersOwnInFlightWhenItIsMoreThanThisDataPlanes() {
    Endpoint e = endpoint();
    e.reportLoad(0.5, 9, 0);
    double latency = e.latency.value(0);
    assertThat(PeakEwmaLoad.INSTANCE.of(e, 0))
        .as("nothing of ours in flight, nine of other clients' held")
        .isCloseTo(latency * 10 * 2, within(1e-6));
    for (int i = 0; i < 12; i++) {
      e.inflight.incrementAndGet();
    }
    assertThat(PeakEwmaLoad.INSTANCE.of(e, 0))
        .as("ours, when more")
        .isCloseTo(latency * 13 * 2, within(1e-6));
    e.inflight.set(0);
    assertThat(PeakEwmaLoad.INSTANCE.of(e, Endpoint.IN_FLIGHT_FADE_NANOS))
        .as("the count faded, the utilization counts on")
        .isCloseTo(e.latency.value(Endpoint.IN_FLIGHT_FADE_NANOS) * 2, within(1e-6));
  }

  private static Endpoint endpoint() {
    return new Endpoint(
        "10.0.0.1",
        80,
        1.0,
        dev.replicapool.api.v1alpha1.MemberState.Healthy,
        new PeakEwma(10_000, 1, 0));
  }
}
