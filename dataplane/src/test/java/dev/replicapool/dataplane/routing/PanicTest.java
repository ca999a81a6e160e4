package dev.replicapool.dataplane.routing;

import static dev.replicapool.dataplane.routing.Fixtures.member;
import static dev.replicapool.dataplane.routing.Fixtures.picks;
import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PanicTest {
  final Fixtures.FakeClock clock = new Fixtures.FakeClock();

  private PoolRouter router(RoutingPolicy policy, int threshold, MemberSnapshot... members) {
    return router(policy, threshold, OutlierPolicy.DEFAULT, members);
  }

  private PoolRouter router(
      RoutingPolicy policy, int threshold, OutlierPolicy outlier, MemberSnapshot... members) {
    PoolRouter r =
        PoolRouter.create(
            "ns/pool",
            RouterSettingsBuilder.builder()
                .policy(policy)
                .outlier(outlier)
                .ewmaTauMillis(10_000)
                .defaultLatencyMillis(100)
                .failurePenaltyMillis(1_000)
                .panicThresholdPercent(threshold)
                .build(),
            List.of(members),
            null,
            clock,
            new Random(3),
            EjectionEvents.NONE);
    r.activate();
    return r;
  }

  @Test
  void offByDefaultEveryRequestFindsNoMember() {
    PoolRouter r =
        router(
            RoutingPolicy.RoundRobin,
            0,
            member("k1", 0.0, MemberState.Unhealthy),
            member("k2", 0.0, MemberState.Unhealthy),
            member("k3", 0.0, MemberState.Unhealthy));
    assertThat(r.panic()).isFalse();
    assertThat(picks(r, 3)).containsExactly("-", "-", "-");
  }

  @ParameterizedTest
  @EnumSource(RoutingPolicy.class)
  void belowTheThresholdEveryRegisteredMemberTakesAnEqualShare(RoutingPolicy policy) {
    PoolRouter r =
        router(
            policy,
            50,
            member("k1", 1.0),
            member("k2", 0.0, MemberState.Unhealthy),
            member("k3", 0.0, MemberState.Unhealthy));
    assertThat(r.panic()).as("1 of 3 routable, below 50 %").isTrue();
    List<String> seq = picks(r, 300);
    assertThat(seq).doesNotContain("-").contains("k1", "k2", "k3");
    if (policy == RoutingPolicy.RoundRobin) {
      assertThat(seq.subList(0, 3)).containsExactlyInAnyOrder("k1", "k2", "k3");
    }
    assertThat(r.view())
        .extracting(PoolRouter.MemberView::effectiveWeight)
        .containsExactly(1.0, 1.0, 1.0);
  }

  @Test
  void atTheThresholdOnlyRoutableMembersTakeRequests() {
    PoolRouter r =
        router(
            RoutingPolicy.RoundRobin,
            50,
            member("k1", 1.0),
            member("k2", 1.0),
            member("k3", 0.0, MemberState.Unhealthy),
            member("k4", 0.0, MemberState.Unhealthy));
    assertThat(r.panic()).as("2 of 4 is 50 %, not below").isFalse();
    assertThat(picks(r, 4)).containsOnly("k1", "k2");
  }

  @Test
  void drainingAndPendingMembersAreNeitherCountedNorRoutedTo() {
    PoolRouter r =
        router(
            RoutingPolicy.RoundRobin,
            50,
            member("k1", 0.0, MemberState.Unhealthy),
            member("k2", 0.0, MemberState.Draining),
            member("k3", 0.0, MemberState.Pending));
    assertThat(r.panic()).isTrue();
    assertThat(picks(r, 4)).containsOnly("k1");

    PoolRouter starting =
        router(
            RoutingPolicy.RoundRobin,
            50,
            member("k1", 0.0, MemberState.Pending),
            member("k2", 0.0, MemberState.Pending));
    assertThat(starting.panic()).as("a new pool does not start in panic").isFalse();
  }

  @Test
  void passivelyEjectedMembersCountAsNotRoutableAndPanicEndsWithTheEjection() {
    OutlierPolicy ejectAfterOne = new OutlierPolicy(1, 1_000, 1_000, 100);
    PoolRouter r =
        router(
            RoutingPolicy.RoundRobin,
            60,
            ejectAfterOne,
            member("k1", 1.0),
            member("k2", 1.0),
            member("k3", 0.0, MemberState.Unhealthy));
    assertThat(r.panic()).as("2 of 3 routable").isFalse();
    Endpoint k1 = r.endpoints().get(0);
    assertThat(r.failure(k1, 1_000_000)).isTrue();
    assertThat(r.panic()).as("1 of 3 after k1's ejection").isTrue();
    assertThat(r.pick(Set.of(r.endpoints().get(1)))).isIn(k1, r.endpoints().get(2));

    clock.advanceMillis(1_000);
    assertThat(r.panic()).isFalse();
  }
}
