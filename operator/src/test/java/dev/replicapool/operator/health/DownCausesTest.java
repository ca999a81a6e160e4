package dev.replicapool.operator.health;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DownCausesTest {
  private final DownCauses d = new DownCauses();

  @Test
  void nothingHoldsANewMemberDown() {
    assertThat(d.reason()).isEmpty();
    assertThat(d.any()).isFalse();
    assertThat(d.blocked()).isFalse();
  }

  @Test
  void theLeaseWinsOverTheSelfReportWhichWinsOverProbes() {
    d.ejectedByProbes("1 probe failed", null);
    assertThat(d.reason()).hasValue("1 probe failed");
    d.renewed(false);
    assertThat(d.reason()).hasValue("reports itself unhealthy");
    d.leaseExpired();
    assertThat(d.reason()).hasValue("lease expired");
    assertThat(d.blocked()).isTrue();
  }

  @Test
  void aRenewalEndsTheExpiryAndCarriesTheSelfReport() {
    d.leaseExpired();
    d.renewed(true);
    assertThat(d.any()).isFalse();
    d.renewed(false);
    assertThat(d.blocked()).isTrue();
    d.renewed(true);
    assertThat(d.reason()).isEmpty();
  }

  @Test
  void readmissionByProbesLeavesTheOtherCauses() {
    d.ejectedByProbes("3 probes failed in a row", null);
    d.leaseExpired();
    d.readmittedByProbes();
    assertThat(d.probesFailed()).isFalse();
    assertThat(d.reason()).hasValue("lease expired");
  }

  @Test
  void eachEjectionAfterTheFirstDoublesThePassesNeededUntilForgiven() {
    assertThat(d.requiredPasses(2)).isEqualTo(2);
    d.ejectedByProbes("x", null);
    assertThat(d.requiredPasses(2)).isEqualTo(2);
    d.readmittedByProbes();
    d.ejectedByProbes("x", null);
    assertThat(d.requiredPasses(2)).isEqualTo(4);
    d.readmittedByProbes();
    d.ejectedByProbes("x", null);
    assertThat(d.requiredPasses(2)).isEqualTo(8);

    d.forgive();
    assertThat(d.requiredPasses(2)).isEqualTo(2);
  }

  @Test
  void theDoublingStopsAtSixtyFourTimes() {
    for (int i = 0; i < 20; i++) {
      d.ejectedByProbes("x", null);
    }
    assertThat(d.requiredPasses(1)).isEqualTo(1 << DownCauses.MAX_FLAP_DOUBLINGS);
  }
}
