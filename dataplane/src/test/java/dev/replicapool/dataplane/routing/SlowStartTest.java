package dev.replicapool.dataplane.routing;

import static dev.replicapool.dataplane.routing.Fixtures.member;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.v1alpha1.SlowStart;
import dev.replicapool.api.wire.MemberSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SlowStartTest {
  final Fixtures.FakeClock clock = new Fixtures.FakeClock();

  @Test
  void rampValuesFollowEnvoysFormula() {
    SlowStartRamp linear = new SlowStartRamp(10_000, 1.0, 10);
    assertThat(linear.factor(0)).isEqualTo(0.1);
    assertThat(linear.factor(500)).as("below the floor").isEqualTo(0.1);
    assertThat(linear.factor(2_500)).isEqualTo(0.25);
    assertThat(linear.factor(5_000)).isEqualTo(0.5);
    assertThat(linear.factor(9_999)).isCloseTo(0.9999, within(1e-9));
    assertThat(linear.factor(10_000)).isEqualTo(1.0);
    assertThat(linear.factor(60_000)).isEqualTo(1.0);

    SlowStartRamp aggressive = new SlowStartRamp(10_000, 2.0, 10);
    assertThat(aggressive.factor(2_500)).as("sqrt(0.25)").isCloseTo(0.5, within(1e-9));
    SlowStartRamp gentle = new SlowStartRamp(10_000, 0.5, 0);
    assertThat(gentle.factor(5_000)).as("0.5^2").isCloseTo(0.25, within(1e-9));
  }

  @Test
  void specDefaultsAndOff() {
    SlowStart s = new SlowStart();
    assertThat(SlowStartRamp.from(s)).isEqualTo(SlowStartRamp.OFF);
    s.windowMillis = 30_000L;
    assertThat(SlowStartRamp.from(s)).isEqualTo(new SlowStartRamp(30_000, 1.0, 10));
    s.aggression = null;
    s.minWeightPercent = null;
    assertThat(SlowStartRamp.from(s)).isEqualTo(new SlowStartRamp(30_000, 1.0, 10));
    assertThat(SlowStartRamp.from(null).factor(0)).isEqualTo(1.0);
  }

  private RouterSettings settings(RoutingPolicy policy) {
    return RouterSettingsBuilder.builder()
        .policy(policy)
        .outlier(OutlierPolicy.DEFAULT)
        .ewmaTauMillis(10_000)
        .defaultLatencyMillis(100)
        .failurePenaltyMillis(1_000)
        .slowStart(new SlowStartRamp(10_000, 1.0, 10))
        .build();
  }

  private PoolRouter next(PoolRouter previous, MemberSnapshot... members) {
    PoolRouter r =
        PoolRouter.create(
            "ns/pool",
            previous.settings(),
            List.of(members),
            previous,
            clock,
            new Random(7),
            EjectionEvents.NONE);
    r.activate();
    return r;
  }

  /** Share of k4 in n picks. */
  private static double shareOfK4(PoolRouter r, int n) {
    int k4 = 0;
    for (int i = 0; i < n; i++) {
      if (r.pick(Set.of()).host().equals("k4")) {
        k4++;
      }
    }
    return k4 / (double) n;
  }

  @ParameterizedTest
  @EnumSource(RoutingPolicy.class)
  void aScaledUpMembersShareClimbsOverTheWindow(RoutingPolicy policy) {
    PoolRouter r =
        PoolRouter.create(
            "ns/pool",
            settings(policy),
            List.of(member("k1", 1.0), member("k2", 1.0), member("k3", 1.0)),
            null,
            clock,
            new Random(7),
            EjectionEvents.NONE);
    r.activate();
    // k4 joins Pending, then answers its first probe five seconds later.
    MemberSnapshot k1 = member("k1", 1.0);
    MemberSnapshot k2 = member("k2", 1.0);
    MemberSnapshot k3 = member("k3", 1.0);
    r = next(r, k1, k2, k3, member("k4", 0.0, MemberState.Pending));
    clock.advanceMillis(5_000);
    r = next(r, k1, k2, k3, member("k4", 1.0));

    List<Double> shares = new ArrayList<>();
    List<Double> weights = new ArrayList<>();
    for (int second = 0; second <= 12; second += 2) {
      weights.add(r.view().get(3).effectiveWeight());
      shares.add(shareOfK4(r, 2_000));
      clock.advanceMillis(2_000);
    }
    System.out.println(policy + " k4 effective weights " + weights + ", shares " + shares);
    // Ramp from the first admitted snapshot, not from joining: 10 % floor, then t / window.
    assertThat(weights).containsExactly(0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.0);
    for (int i = 1; i < shares.size(); i++) {
      assertThat(shares.get(i))
          .as("share after %d s", 2 * i)
          .isGreaterThanOrEqualTo(shares.get(i - 1) - 0.02);
    }
    // weight w among three at 1.0: share w / (3 + w)
    assertThat(shares.get(0)).isCloseTo(0.1 / 3.1, within(0.02));
    assertThat(shares.get(2)).isCloseTo(0.4 / 3.4, within(0.03));
    assertThat(shares.get(6)).isCloseTo(0.25, within(0.03));
  }

  @Test
  void membersOfAPoolsFirstSnapshotTakeTheirFullShareAtOnce() {
    PoolRouter r =
        PoolRouter.create(
            "ns/pool",
            settings(RoutingPolicy.RoundRobin),
            List.of(member("k1", 1.0), member("k2", 0.0, MemberState.Pending)),
            null,
            clock,
            new Random(7),
            EjectionEvents.NONE);
    r.activate();
    // No member was routable when k2 joined, so nobody could have taken load off it.
    r = next(r, member("k1", 1.0), member("k2", 1.0));
    assertThat(r.view())
        .extracting(PoolRouter.MemberView::effectiveWeight)
        .containsExactly(1.0, 1.0);
  }

  @Test
  void aMemberComingBackFromUnhealthyDoesNotRampAgain() {
    PoolRouter r =
        PoolRouter.create(
            "ns/pool",
            settings(RoutingPolicy.RoundRobin),
            List.of(member("k1", 1.0), member("k2", 1.0)),
            null,
            clock,
            new Random(7),
            EjectionEvents.NONE);
    r.activate();
    r = next(r, member("k1", 1.0), member("k2", 0.0, MemberState.Unhealthy));
    clock.advanceMillis(1_000);
    // The operator ramps recoveries itself (0.3 here); the data plane adds nothing.
    r = next(r, member("k1", 1.0), member("k2", 0.3, MemberState.Degraded));
    assertThat(r.view().get(1).effectiveWeight()).isEqualTo(0.3);
  }
}
