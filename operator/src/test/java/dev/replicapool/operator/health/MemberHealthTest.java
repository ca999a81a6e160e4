package dev.replicapool.operator.health;

import static dev.replicapool.api.v1alpha1.MemberState.Degraded;
import static dev.replicapool.api.v1alpha1.MemberState.Draining;
import static dev.replicapool.api.v1alpha1.MemberState.Healthy;
import static dev.replicapool.api.v1alpha1.MemberState.Unhealthy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class MemberHealthTest {
  private static final long T0 = 1_700_000_000_000L;

  private final MutableClock clock = new MutableClock(T0);

  /** Adaptive with the spec defaults: interval 1 s, timeout 500 ms, eject after 5, hold 30 s. */
  static HealthPolicy adaptive() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.routing.policy = RoutingPolicy.Adaptive;
    return HealthPolicy.from(spec);
  }

  /**
   * S1's load balancer (docs/SCENARIOS.md): RoundRobin, 200 ms interval, one failed round marks it
   * down.
   */
  static HealthPolicy seedRoundRobin() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.healthCheck.intervalMillis = 200;
    spec.healthCheck.timeoutMillis = 100;
    spec.healthCheck.unhealthyThreshold = 1;
    spec.healthCheck.healthyThreshold = 1;
    return HealthPolicy.from(spec);
  }

  private MemberHealth member(HealthPolicy policy) {
    return new MemberHealth(policy, clock);
  }

  /** One probe one interval after the previous one. */
  private Optional<Transition> probe(MemberHealth m, boolean ok, long latencyMillis) {
    clock.advance(m.policy().intervalMillis());
    return m.onProbe(ok, latencyMillis);
  }

  private void passes(MemberHealth m, int n, long latencyMillis) {
    for (int i = 0; i < n; i++) {
      probe(m, true, latencyMillis);
    }
  }

  @Nested
  class PendingUntilTheFirstPass {
    private MemberHealth joining(HealthPolicy policy) {
      return MemberHealth.joining(policy, clock);
    }

    @Test
    void aJoiningMemberIsPendingWithWeightZero() {
      MemberHealth m = joining(seedRoundRobin());
      assertThat(m.state()).isEqualTo(MemberState.Pending);
      assertThat(m.weight()).isZero();
      assertThat(m.snapshot().routable()).isFalse();
      assertThat(m.reason()).isEqualTo("waiting for its first passing probe");
      assertThat(joining(seedRoundRobin().withThresholds(1, 3)).reason())
          .isEqualTo("waiting for 3 passing probes in a row");
    }

    @Test
    void failuresBeforeTheFirstPassChangeNothingAndLeaveNoTrace() {
      MemberHealth m = joining(seedRoundRobin());
      for (int i = 0; i < 5; i++) {
        assertThat(probe(m, false, 100)).as("failure %d", i).isEmpty();
      }
      assertThat(m.state()).isEqualTo(MemberState.Pending);
      assertThat(m.transitions()).isZero();
      assertThat(m.errorRate()).isZero();
      assertThat(m.latencyP95Millis()).isNull();
    }

    @Test
    void theFirstPassMakesItHealthyAtOnceWithFullWeightAndOnlyThatSample() {
      MemberHealth m = joining(seedRoundRobin());
      probe(m, false, 100); // a timeout, which would count as a slow sample later on
      probe(m, false, 2);

      Optional<Transition> t = probe(m, true, 7);

      assertThat(t).isPresent();
      assertThat(t.get().from()).isEqualTo(MemberState.Pending);
      assertThat(t.get().to()).isEqualTo(Healthy);
      assertThat(t.get().reason()).isEqualTo("answered: 1 probe passed");
      assertThat(m.weight()).isEqualTo(1.0);
      assertThat(m.latencyP95Millis()).isEqualTo(7L);
      assertThat(m.errorRate()).isZero();
    }

    @Test
    void healthyThresholdPassesInARowAreNeeded() {
      MemberHealth m = joining(seedRoundRobin().withThresholds(1, 3));
      assertThat(probe(m, true, 5)).isEmpty();
      assertThat(probe(m, true, 5)).isEmpty();
      assertThat(probe(m, false, 1)).as("a failure ends the streak").isEmpty();
      assertThat(probe(m, true, 5)).isEmpty();
      assertThat(probe(m, true, 5)).isEmpty();
      assertThat(m.state()).isEqualTo(MemberState.Pending);

      Optional<Transition> t = probe(m, true, 5);

      assertThat(t.map(Transition::to)).contains(Healthy);
      assertThat(t.get().reason()).isEqualTo("answered: 3 probes passed in a row");
    }

    @Test
    void afterTheFirstPassTheUsualRulesApply() {
      MemberHealth m = joining(seedRoundRobin());
      probe(m, true, 5);
      Optional<Transition> t = probe(m, false, 1);
      assertThat(t.map(Transition::to)).contains(Unhealthy);
      t = probe(m, true, 5);
      assertThat(t.map(Transition::to)).as("routable before: hysteresis").contains(Degraded);
    }

    @Test
    void neverPassingWithinTheGraceMakesItUnhealthySayingItNeverAnswered() {
      HealthPolicy policy = seedRoundRobin(); // 200 ms interval: grace 2,000 ms
      assertThat(policy.startupGraceMillis()).isEqualTo(2_000);
      MemberHealth m = joining(policy);
      for (int i = 1; i < 10; i++) {
        assertThat(probe(m, false, 1)).as("failure at %d ms", i * 200).isEmpty();
      }

      Optional<Transition> t = probe(m, false, 1); // at 2,000 ms

      assertThat(t).isPresent();
      assertThat(t.get().from()).isEqualTo(MemberState.Pending);
      assertThat(t.get().to()).isEqualTo(Unhealthy);
      assertThat(t.get().reason())
          .isEqualTo(
              "never answered: no probe passed within 2000ms of joining (10 probes failed"
                  + " in a row)");
      assertThat(probe(m, false, 1)).as("no second transition").isEmpty();
      assertThat(m.weight()).isZero();
    }

    @Test
    void aMemberThatNeverAnsweredGoesStraightToHealthyOnItsFirstPass() {
      MemberHealth m = joining(seedRoundRobin());
      for (int i = 0; i < 10; i++) {
        probe(m, false, 1);
      }
      assertThat(m.state()).isEqualTo(Unhealthy);

      Optional<Transition> t = probe(m, true, 5);

      assertThat(t.map(Transition::from)).contains(Unhealthy);
      assertThat(t.map(Transition::to)).as("nothing to recover from").contains(Healthy);
      assertThat(m.weight()).isEqualTo(1.0);
    }

    @Test
    void theGraceComesFromTheSpecWhenSet() {
      ReplicaPoolSpec spec = new ReplicaPoolSpec();
      spec.healthCheck.startupGraceMillis = 60_000;
      assertThat(HealthPolicy.from(spec).startupGraceMillis()).isEqualTo(60_000);
      assertThat(HealthPolicy.defaults().startupGraceMillis()).isEqualTo(10_000);
    }

    @Test
    void withoutActiveChecksThereIsNothingToWaitFor() {
      ReplicaPoolSpec spec = new ReplicaPoolSpec();
      spec.healthCheck.enabled = false;
      MemberHealth m = joining(HealthPolicy.from(spec));
      assertThat(m.state()).isEqualTo(Healthy);
      assertThat(m.weight()).isEqualTo(1.0);
    }

    @Test
    void leaseAndSelfReportsDoNotMoveAPendingMember() {
      MemberHealth m = joining(seedRoundRobin());
      assertThat(m.onSelfReported(false)).isEmpty();
      assertThat(m.onLeaseExpired()).isEmpty();
      assertThat(m.tick()).isEmpty();
      assertThat(m.state()).isEqualTo(MemberState.Pending);
      assertThat(probe(m, true, 5)).as("the lease is still expired").isEmpty();
      m.onSelfReported(true);
      assertThat(probe(m, true, 5).map(Transition::to)).contains(Healthy);
    }

    @Test
    void drainingEndsPending() {
      MemberHealth m = joining(seedRoundRobin());
      assertThat(m.onDraining().map(Transition::to)).contains(Draining);
      assertThat(probe(m, true, 5)).isEmpty();
      assertThat(m.state()).isEqualTo(Draining);
    }

    @Test
    void aNewPolicyKeepsAPendingMemberPendingAndARoutableOneHealthy() {
      MemberHealth pending = joining(seedRoundRobin());
      MemberHealth routable = joining(seedRoundRobin());
      probe(routable, true, 5);
      probe(routable, false, 1); // Unhealthy, but it was routable before
      HealthPolicy next = adaptive();
      assertThat(pending.restartedWith(next).state()).isEqualTo(MemberState.Pending);
      assertThat(routable.restartedWith(next).state()).isEqualTo(Healthy);
    }
  }

  @Test
  void aMemberWhoseModelRestartsIsHealthyWithFullWeight() {
    MemberHealth m = member(adaptive());
    assertThat(m.state()).isEqualTo(Healthy);
    assertThat(m.weight()).isEqualTo(1.0);
    assertThat(m.latencyP95Millis()).isNull();
    assertThat(m.lastTransition()).isEqualTo(Instant.ofEpochMilli(T0));
  }

  @Nested
  class HealthyToDegraded {
    @Test
    void byWindowedP95Latency() {
      MemberHealth m = member(adaptive());
      passes(m, 20, 50);
      // One spike in a window of 20 is the 100th percentile, not the p95: still Healthy.
      assertThat(probe(m, true, 412)).isEmpty();
      assertThat(m.state()).isEqualTo(Healthy);

      Optional<Transition> t = probe(m, true, 412);

      assertThat(t).isPresent();
      assertThat(t.get().from()).isEqualTo(Healthy);
      assertThat(t.get().to()).isEqualTo(Degraded);
      assertThat(t.get().reason()).isEqualTo("p95 412ms > 2.0 x 100ms");
      assertThat(t.get().at()).isEqualTo(clock.instant());
      assertThat(m.latencyP95Millis()).isEqualTo(412L);
      assertThat(m.lastTransition()).isEqualTo(clock.instant());
      // score 50 -> 86.2 -> 118.78 ms: latency penalty 0.19.
      assertThat(m.weight()).isEqualTo(0.81);
    }

    @Test
    void byErrorRateWithoutTwoFailuresInARow() {
      MemberHealth m = member(adaptive());
      passes(m, 5, 50);
      assertThat(probe(m, false, 3)).isEmpty();
      // A single failure is exactly the threshold, not above: Healthy, but the penalty shows.
      assertThat(m.errorRate()).isCloseTo(0.05, org.assertj.core.data.Offset.offset(1e-12));
      assertThat(m.state()).isEqualTo(Healthy);
      assertThat(m.weight()).isEqualTo(0.5);
      assertThat(probe(m, true, 50)).isEmpty();

      Optional<Transition> t = probe(m, false, 3);

      assertThat(t).map(Transition::to).contains(Degraded);
      assertThat(t.get().reason()).isEqualTo("error rate 0.10 > 0.05");
      assertThat(m.consecutiveFailures()).isEqualTo(1);
    }

    @Test
    void byTwoFailuresInARow() {
      MemberHealth m = member(adaptive());
      passes(m, 3, 50);
      assertThat(probe(m, false, 2)).isEmpty();

      Optional<Transition> t = probe(m, false, 2);

      assertThat(t).map(Transition::to).contains(Degraded);
      assertThat(t.get().reason()).isEqualTo("2 probes failed in a row");
      assertThat(m.weight()).isEqualTo(0.1);
    }
  }

  @Test
  void degradedBecomesUnhealthyAfterEjectAfterFailures() {
    MemberHealth m = member(adaptive());
    passes(m, 3, 50);
    probe(m, false, 2);
    probe(m, false, 2);
    assertThat(m.state()).isEqualTo(Degraded);
    probe(m, false, 2);
    assertThat(m.reason()).isEqualTo("3 probes failed in a row");
    probe(m, false, 2);
    assertThat(m.state()).isEqualTo(Degraded);

    Optional<Transition> t = probe(m, false, 2);

    assertThat(t).isPresent();
    assertThat(t.get().from()).isEqualTo(Degraded);
    assertThat(t.get().to()).isEqualTo(Unhealthy);
    assertThat(t.get().reason()).isEqualTo("5 probes failed in a row");
    assertThat(m.weight()).isZero();
    // More failures keep the number that tripped it.
    probe(m, false, 2);
    assertThat(m.reason()).isEqualTo("5 probes failed in a row");
    assertThat(m.snapshot().routable()).isFalse();
  }

  @Test
  void seedOneFailedProbeMakesAMemberUnhealthyAtOnce() {
    MemberHealth m = member(seedRoundRobin());
    passes(m, 10, 2);
    assertThat(m.weight()).isEqualTo(1.0);

    Optional<Transition> t = probe(m, false, 0);

    assertThat(t).isPresent();
    assertThat(t.get().from()).isEqualTo(Healthy);
    assertThat(t.get().to()).isEqualTo(Unhealthy);
    assertThat(t.get().reason()).isEqualTo("1 probe failed");
    assertThat(m.weight()).isZero();
  }

  /** What the probes said reaches every reason a user reads, one transition at a time. */
  @Nested
  class ReasonsSayWhyProbesFailed {
    private Optional<Transition> failure(MemberHealth m, String why) {
      clock.advance(m.policy().intervalMillis());
      return m.onProbe(false, 2, why);
    }

    @Test
    void healthyToUnhealthyNamesTheCause() {
      MemberHealth m = member(seedRoundRobin());
      passes(m, 3, 2);

      Optional<Transition> t = failure(m, "connection refused");

      assertThat(t.map(Transition::reason)).contains("1 probe failed: connection refused");
      assertThat(m.snapshot().reason()).isEqualTo("1 probe failed: connection refused");
    }

    @Test
    void healthyToDegradedNamesTheCause() {
      MemberHealth m = member(adaptive());
      passes(m, 3, 50);
      failure(m, "HTTP 500");

      Optional<Transition> t = failure(m, "HTTP 500");

      assertThat(t.map(Transition::to)).contains(Degraded);
      assertThat(t.get().reason()).isEqualTo("2 probes failed in a row: HTTP 500");
    }

    @Test
    void whileUnhealthyTheReasonFollowsTheLatestCauseWithoutATransition() {
      MemberHealth m = member(seedRoundRobin());
      passes(m, 3, 2);
      failure(m, "connection refused");

      assertThat(failure(m, "timeout after 100 ms")).isEmpty();

      assertThat(m.state()).isEqualTo(Unhealthy);
      assertThat(m.reason()).isEqualTo("1 probe failed: timeout after 100 ms");
    }

    @Test
    void aPendingMemberSaysWhatItsLastProbeSaidWithoutATransition() {
      MemberHealth m = MemberHealth.joining(seedRoundRobin(), clock);

      assertThat(failure(m, "gRPC NOT_SERVING")).isEmpty();

      assertThat(m.state()).isEqualTo(MemberState.Pending);
      assertThat(m.reason())
          .isEqualTo("waiting for its first passing probe; last probe: gRPC NOT_SERVING");
      assertThat(m.transitions()).isZero();
    }

    @Test
    void neverAnsweredNamesTheCause() {
      MemberHealth m = MemberHealth.joining(seedRoundRobin(), clock); // grace 2,000 ms
      for (int i = 1; i < 10; i++) {
        failure(m, "TLS: certificate for another name");
      }

      Optional<Transition> t = failure(m, "TLS: certificate for another name");

      assertThat(t.map(Transition::to)).contains(Unhealthy);
      assertThat(t.get().reason())
          .isEqualTo(
              "never answered: no probe passed within 2000ms of joining (10 probes failed"
                  + " in a row: TLS: certificate for another name)");
    }

    @Test
    void aPassForgetsTheCause() {
      MemberHealth m = MemberHealth.joining(seedRoundRobin().withThresholds(1, 2), clock);
      failure(m, "HTTP 500");
      clock.advance(200);
      m.onProbe(true, 2, null);

      assertThat(m.reason()).isEqualTo("waiting for 2 passing probes in a row");
    }
  }

  @Nested
  class UnhealthyToDegraded {
    @Test
    void afterHealthyThresholdPassesWithSlowStartFromTheFirstPass() {
      ReplicaPoolSpec spec = new ReplicaPoolSpec();
      spec.healthCheck.healthyThreshold = 3; // RoundRobin: base weight 1.0, only the ramp shows
      MemberHealth m = member(HealthPolicy.from(spec));
      for (int i = 0; i < 3; i++) {
        probe(m, false, 1);
      }
      assertThat(m.state()).isEqualTo(Unhealthy);
      assertThat(m.reason()).isEqualTo("3 probes failed in a row");

      assertThat(probe(m, true, 10)).isEmpty(); // first passing probe: the ramp starts here
      long firstPass = clock.millis();
      assertThat(m.weight()).isZero();
      assertThat(probe(m, true, 10)).isEmpty();
      Optional<Transition> t = probe(m, true, 10);

      assertThat(t).isPresent();
      assertThat(t.get().from()).isEqualTo(Unhealthy);
      assertThat(t.get().to()).isEqualTo(Degraded);
      // 2 s into a 10 s ramp, not 0: keyed to the first passing probe, not to the transition.
      assertThat(clock.millis() - firstPass).isEqualTo(2_000);
      assertThat(m.weight()).isEqualTo(0.2);
      clock.advance(3_000);
      assertThat(m.weight()).isEqualTo(0.5);
      clock.advance(4_999);
      assertThat(m.weight()).isEqualTo(1.0); // 0.9999 rounds; the ramp is linear
      clock.advance(10_000);
      assertThat(m.weight()).isEqualTo(1.0);
      assertThat(m.state()).isEqualTo(Degraded); // the 30 s hold is not over
    }

    @Test
    void rampStartsAtTenPercentWhenTheFirstPassSuffices() {
      MemberHealth m = member(seedRoundRobin().withRecovery(30_000, 10_000));
      probe(m, false, 0);
      Optional<Transition> t = probe(m, true, 5);
      assertThat(t).map(Transition::to).contains(Degraded);
      assertThat(t.get().reason()).isEqualTo("recovering: 1 probe passed, slow start");
      assertThat(m.weight()).isEqualTo(0.1);
    }

    @Test
    void adaptiveRampMultipliesThePenaltyWeightAndKeepsTheFloor() {
      MemberHealth m = member(adaptive().withThresholds(1, 1).withRecovery(30_000, 10_000));
      passes(m, 30, 150); // latency 150 ms: weight 0.5
      assertThat(m.weight()).isEqualTo(0.5);
      probe(m, false, 1);
      assertThat(m.state()).isEqualTo(Unhealthy);
      probe(m, true, 150);
      assertThat(m.state()).isEqualTo(Degraded);
      // base 1 - (0.5 + 10 x 0.0475) = 0.025, x ramp 0.1: below the floor.
      assertThat(m.weight()).isEqualTo(0.1);
    }

    @Test
    void neverDirectlyToHealthyEvenWithoutAHold() {
      MemberHealth m = member(seedRoundRobin().withRecovery(0, 0));
      probe(m, false, 0);
      Optional<Transition> back = probe(m, true, 5);
      assertThat(back).map(Transition::to).contains(Degraded);
      assertThat(m.weight()).isEqualTo(1.0); // no slow start when the window is 0
      assertThat(probe(m, true, 5)).map(Transition::to).contains(Healthy);
    }
  }

  @Nested
  class DegradedToHealthy {
    @Test
    void onlyAfterTheRecoveryHoldOfGoodResults() {
      MemberHealth m = member(adaptive());
      passes(m, 3, 50);
      probe(m, false, 2);
      probe(m, false, 2);
      assertThat(m.state()).isEqualTo(Degraded);

      // Passing probes first decay the error rate below the threshold...
      int decay = 0;
      while (m.errorRate() > 0.05) {
        assertThat(probe(m, true, 50)).isEmpty();
        decay++;
      }
      assertThat(decay).isEqualTo(14); // 0.0975 x 0.95^14 = 0.0478
      assertThat(m.reason()).isEqualTo("recovering: needs 30000ms of good results");
      long goodSince = clock.millis();
      // ...then 30 s of good results hold it in Degraded.
      while (clock.millis() - goodSince < 29_000) {
        assertThat(probe(m, true, 50)).isEmpty();
        assertThat(m.state()).isEqualTo(Degraded);
      }
      Optional<Transition> t = probe(m, true, 50);
      assertThat(clock.millis() - goodSince).isEqualTo(30_000);
      assertThat(t).isPresent();
      assertThat(t.get().from()).isEqualTo(Degraded);
      assertThat(t.get().to()).isEqualTo(Healthy);
      assertThat(t.get().reason()).isEqualTo("recovered after 30000ms of good results");
    }

    @Test
    void aFailureDuringTheHoldStartsItAgain() {
      MemberHealth m = member(adaptive().withRecovery(5_000, 0));
      passes(m, 25, 50);
      passes(m, 2, 450); // p95 450 over 2 x 100
      assertThat(m.state()).isEqualTo(Degraded);
      assertThat(m.reason()).isEqualTo("p95 450ms > 2.0 x 100ms");
      passes(m, 19, 50); // one slow sample left in 20 is no longer the p95
      assertThat(m.latencyP95Millis()).isEqualTo(50L);
      long goodSince = clock.millis();
      passes(m, 3, 50);
      clock.advance(100);
      m.onProbe(false, 3); // error rate 0.05: not above, but a failed probe is not good
      long goodAgain = clock.millis() + 1_000;
      passes(m, 5, 50);
      assertThat(clock.millis() - goodSince).isGreaterThan(5_000);
      assertThat(clock.millis() - goodAgain).isEqualTo(4_000);
      assertThat(m.state()).isEqualTo(Degraded);
      passes(m, 1, 50);
      assertThat(m.state()).isEqualTo(Healthy);
    }

    @Test
    void tickEndsTheHoldOfAMemberNobodyProbes() {
      MemberHealth m = member(adaptive().withRecovery(5_000, 1_000));
      m.onSelfReported(false);
      assertThat(m.state()).isEqualTo(Unhealthy);
      Optional<Transition> back = m.onSelfReported(true);
      assertThat(back).map(Transition::to).contains(Degraded);
      clock.advance(4_999);
      assertThat(m.tick()).isEmpty();
      clock.advance(1);
      assertThat(m.tick()).map(Transition::to).contains(Healthy);
    }
  }

  @Test
  void leaseExpiryMakesUnhealthyUntilTheNextRenewal() {
    MemberHealth m = member(adaptive().withRecovery(30_000, 10_000));
    passes(m, 5, 20);

    Optional<Transition> t = m.onLeaseExpired();

    assertThat(t).isPresent();
    assertThat(t.get().to()).isEqualTo(Unhealthy);
    assertThat(t.get().reason()).isEqualTo("lease expired");
    assertThat(m.weight()).isZero();
    passes(m, 5, 20); // probes passing do not renew a lease
    assertThat(m.state()).isEqualTo(Unhealthy);

    clock.advance(100);
    Optional<Transition> renewed = m.onSelfReported(true);
    assertThat(renewed).map(Transition::to).contains(Degraded);
    assertThat(m.weight()).isEqualTo(0.1); // slow start from the renewal
    clock.advance(5_000);
    assertThat(m.weight()).isEqualTo(0.5);
  }

  @Test
  void selfReportedUnhealthyWinsOverPassingProbes() {
    MemberHealth m = member(adaptive());
    passes(m, 5, 20);

    Optional<Transition> t = m.onSelfReported(false);

    assertThat(t).isPresent();
    assertThat(t.get().to()).isEqualTo(Unhealthy);
    assertThat(t.get().reason()).isEqualTo("reports itself unhealthy");
    passes(m, 10, 20);
    m.onSelfReported(false);
    assertThat(m.state()).isEqualTo(Unhealthy);
    assertThat(m.transitions()).isEqualTo(1);
    assertThat(m.onSelfReported(true)).map(Transition::to).contains(Degraded);
  }

  @Nested
  class DrainedByAUser {
    static final String WHY = "drained by annotation replicapool.dev/drain";

    @Test
    void drainedIsDrainingWithWeightZeroSayingWhoDrainedIt() {
      MemberHealth m = member(adaptive());
      Optional<Transition> t = m.onDrained(WHY);
      assertThat(t).map(Transition::from).contains(Healthy);
      assertThat(t).map(Transition::to).contains(Draining);
      assertThat(t).map(Transition::reason).contains(WHY);
      assertThat(m.state()).isEqualTo(Draining);
      assertThat(m.weight()).isZero();
      assertThat(m.snapshot().routable()).isFalse();
      assertThat(m.reason()).isEqualTo(WHY);
      assertThat(m.onDrained(WHY)).as("the same drain again changes nothing").isEmpty();
      assertThat(m.transitions()).isEqualTo(1);
    }

    @Test
    void undrainedItShowsItsHealthAgain() {
      MemberHealth m = member(adaptive());
      m.onDrained(WHY);
      Optional<Transition> t = m.onUndrained();
      assertThat(t).map(Transition::from).contains(Draining);
      assertThat(t).map(Transition::to).contains(Healthy);
      assertThat(m.state()).isEqualTo(Healthy);
      assertThat(m.weight()).isEqualTo(1.0);
      assertThat(m.onUndrained()).as("not drained: nothing to undo").isEmpty();
    }

    @Test
    void theModelRunsUnseenWhileDrained() {
      MemberHealth m = member(seedRoundRobin());
      m.onDrained(WHY);
      // It fails while drained: no transition is reported, it stays shown Draining...
      assertThat(probe(m, false, 1)).isEmpty();
      assertThat(m.state()).isEqualTo(Draining);
      assertThat(m.reason()).isEqualTo(WHY);
      // ...and undrained it is what its probes made it.
      assertThat(m.onUndrained()).map(Transition::to).contains(Unhealthy);
      assertThat(m.weight()).isZero();
      assertThat(probe(m, true, 1)).map(Transition::to).contains(Degraded);
    }

    @Test
    void aTerminatingPodIsFinalEvenWhenAlsoDrainedByAUser() {
      MemberHealth m = member(adaptive());
      m.onDrained(WHY);
      assertThat(m.onDraining()).as("already shown Draining").isEmpty();
      assertThat(m.onUndrained()).isEmpty();
      assertThat(m.state()).isEqualTo(Draining);
      assertThat(m.onDrained(WHY)).isEmpty();
      assertThat(m.state()).isEqualTo(Draining);
    }

    @Test
    void aNewPolicyKeepsTheDrain() {
      MemberHealth m = member(adaptive());
      m.onDrained(WHY);
      MemberHealth restarted = m.restartedWith(seedRoundRobin());
      assertThat(restarted.state()).isEqualTo(Draining);
      assertThat(restarted.onDrained(WHY)).isEmpty();
    }
  }

  @Test
  void drainingIsFinalWithWeightZero() {
    MemberHealth m = member(adaptive());
    passes(m, 3, 20);

    Optional<Transition> t = m.onDraining();

    assertThat(t).isPresent();
    assertThat(t.get().to()).isEqualTo(Draining);
    assertThat(m.weight()).isZero();
    for (int i = 0; i < 10; i++) {
      probe(m, false, 1);
    }
    m.onLeaseExpired();
    m.onSelfReported(true);
    assertThat(m.state()).isEqualTo(Draining);
    assertThat(m.onDraining()).isEmpty();
    assertThat(m.transitions()).isEqualTo(1);
  }

  @Nested
  class Weight {
    @Test
    void latencyOneAndAHalfTimesTheBaselineHalvesIt() {
      MemberHealth m = member(adaptive());
      passes(m, 10, 150);
      assertThat(m.state()).isEqualTo(Healthy); // p95 150 is below 2 x 100
      assertThat(m.weight()).isEqualTo(0.5);
    }

    @Test
    void healthyWithoutPenaltiesIsOne() {
      MemberHealth m = member(adaptive());
      passes(m, 10, 80);
      assertThat(m.weight()).isEqualTo(1.0);
    }

    @Test
    void neverBelowMinWeightWhileRoutable() {
      MemberHealth m = member(adaptive());
      passes(m, 10, 190); // 1 - 0.9
      assertThat(m.weight()).isEqualTo(0.1);
      passes(m, 10, 500);
      assertThat(m.state()).isEqualTo(Degraded);
      assertThat(m.weight()).isEqualTo(0.1);
    }

    @Test
    void errorPenaltyIsTenTimesTheErrorRate() {
      MemberHealth m = member(adaptive());
      probe(m, false, 1); // error rate 0.05, no latency sample from a fast failure
      assertThat(m.weight()).isEqualTo(0.5);
      assertThat(m.latencyP95Millis()).isNull();
    }

    @Test
    void latencyScoreDecaysExponentially() {
      MemberHealth m = member(adaptive());
      passes(m, 1, 100);
      passes(m, 1, 200); // 100 + 0.1 x 100
      assertThat(m.latencyScoreMillis()).isEqualTo(110.0);
      assertThat(m.weight()).isEqualTo(0.9);
    }

    @Test
    void fastFailuresNeverLookFastButTimeoutsCountAsSlow() {
      MemberHealth m = member(adaptive());
      passes(m, 10, 100);
      probe(m, false, 1);
      assertThat(m.latencyScoreMillis()).isEqualTo(100.0);
      probe(m, false, 500); // the timeout
      assertThat(m.latencyScoreMillis()).isEqualTo(140.0);
    }

    @Test
    void roundRobinKeepsEqualSharesForSlowAndDegradedMembers() {
      MemberHealth m = member(HealthPolicy.defaults());
      passes(m, 10, 150);
      assertThat(m.weight()).isEqualTo(1.0);
      passes(m, 5, 900);
      assertThat(m.state()).isEqualTo(Degraded);
      assertThat(m.weight()).isEqualTo(1.0);
    }

    @Test
    void snapshotFillsAStatusRow() {
      MemberHealth m = member(adaptive());
      passes(m, 20, 50);
      passes(m, 2, 412);
      EndpointStatus row = m.snapshot().applyTo(new EndpointStatus());
      assertThat(row.state).isEqualTo(Degraded);
      assertThat(row.weight).isEqualTo(0.81);
      assertThat(row.latencyP95Millis).isEqualTo(412L);
      assertThat(row.errorRate).isEqualTo(0.0);
      assertThat(row.message).isEqualTo("p95 412ms > 2.0 x 100ms");
      assertThat(row.lastTransitionTime).isEqualTo(clock.instant().toString());
    }
  }

  @Nested
  class AntiFlapping {
    /** Alternates pass/fail for {@code minutes}, returns the times of every state change. */
    private List<Long> alternate(MemberHealth m, int minutes) {
      List<Long> changes = new ArrayList<>();
      long end = clock.millis() + minutes * 60_000L;
      boolean ok = true;
      while (clock.millis() < end) {
        if (probe(m, ok, ok ? 20 : 1).isPresent()) {
          changes.add(clock.millis());
        }
        ok = !ok;
      }
      return changes;
    }

    private static int maxPerMinute(List<Long> changes) {
      int max = 0;
      for (int i = 0; i < changes.size(); i++) {
        int n = 0;
        for (int j = i; j < changes.size() && changes.get(j) - changes.get(i) < 60_000; j++) {
          n++;
        }
        max = Math.max(max, n);
      }
      return max;
    }

    private void assertRecoversOnlyAfterTheHold(MemberHealth m) {
      long stopped = clock.millis();
      long cleanSince = -1;
      while (m.state() != Healthy) {
        probe(m, true, 20);
        if (cleanSince < 0 && m.errorRate() <= m.policy().errorRateThreshold()) {
          cleanSince = clock.millis();
        }
        assertThat(clock.millis() - stopped).as("recovers at all").isLessThan(10 * 60_000L);
      }
      assertThat(cleanSince).isPositive();
      assertThat(clock.millis() - cleanSince).isGreaterThanOrEqualTo(30_000);
      // RoundRobin: full weight; Adaptive: what is left of the error penalty (0.05 x 0.95^30).
      assertThat(m.weight()).isEqualTo(m.policy().weighted() ? 0.9 : 1.0);
    }

    @Test
    void seedRoundRobinWithThresholdsOfOne() {
      MemberHealth m = member(seedRoundRobin());
      List<Long> changes = alternate(m, 5);
      // Unhealthy, Degraded once, Unhealthy again; then it needs 2 passes in a row.
      assertThat(changes).hasSizeLessThanOrEqualTo(4);
      assertThat(maxPerMinute(changes)).isLessThanOrEqualTo(4);
      assertThat(m.state()).isEqualTo(Unhealthy);
      assertRecoversOnlyAfterTheHold(m);
    }

    @Test
    void adaptiveDefaults() {
      MemberHealth m = member(adaptive());
      List<Long> changes = alternate(m, 5);
      assertThat(maxPerMinute(changes)).isLessThanOrEqualTo(4);
      assertThat(m.state()).isEqualTo(Degraded);
      assertThat(m.reason()).startsWith("error rate ");
      assertRecoversOnlyAfterTheHold(m);
    }

    @Test
    void roundRobinDefaults() {
      MemberHealth m = member(HealthPolicy.defaults());
      List<Long> changes = alternate(m, 5);
      assertThat(maxPerMinute(changes)).isLessThanOrEqualTo(4);
      assertThat(m.state()).isNotEqualTo(Healthy);
      assertRecoversOnlyAfterTheHold(m);
    }

    @Test
    void repeatedEjectionsNeedLongerPassingStreaks() {
      MemberHealth m = member(seedRoundRobin());
      // fail once, pass twice, repeatedly: the streak needed doubles each time.
      List<MemberState> seen = new ArrayList<>();
      for (int round = 0; round < 20; round++) {
        probe(m, false, 1);
        probe(m, true, 20);
        probe(m, true, 20);
        seen.add(m.state());
      }
      assertThat(m.transitions()).isLessThanOrEqualTo(5);
      assertThat(seen.subList(5, seen.size())).containsOnly(Unhealthy);
    }
  }
}
