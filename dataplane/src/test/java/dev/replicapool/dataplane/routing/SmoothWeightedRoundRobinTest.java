package dev.replicapool.dataplane.routing;

import static dev.replicapool.dataplane.routing.Fixtures.endpoint;
import static dev.replicapool.dataplane.routing.Fixtures.member;
import static dev.replicapool.dataplane.routing.Fixtures.picks;
import static dev.replicapool.dataplane.routing.Fixtures.router;
import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SmoothWeightedRoundRobinTest {
  final Fixtures.FakeClock clock = new Fixtures.FakeClock();
  final SmoothWeightedRoundRobin swrr = new SmoothWeightedRoundRobin();

  @Test
  void nginxSequenceForWeightsFiveOneOneWithEveryScoreTransition() {
    Endpoint a = endpoint("a", 1.0, clock);
    Endpoint b = endpoint("b", 0.2, clock);
    Endpoint c = endpoint("c", 0.2, clock);
    List<Endpoint> all = List.of(a, b, c);
    // Scores in units of 200 (weights 5:1:1, total 7), after each pick, as in nginx's comment.
    long[][] expectedScores = {
      {-2, 1, 1}, {-4, 2, 2}, {1, -4, 3}, {-1, -3, 4}, {4, -2, -2}, {2, -1, -1}, {0, 0, 0}
    };
    String[] expectedPicks = {"a", "a", "b", "a", "c", "a", "a"};
    for (int i = 0; i < 7; i++) {
      assertThat(swrr.pick(all, clock.now).host()).as("pick %d", i).isEqualTo(expectedPicks[i]);
      assertThat(new long[] {swrr.score(a) / 200, swrr.score(b) / 200, swrr.score(c) / 200})
          .as("scores after pick %d", i)
          .containsExactly(expectedScores[i]);
    }
    // The cycle repeats.
    StringBuilder next = new StringBuilder();
    for (int i = 0; i < 7; i++) {
      next.append(swrr.pick(all, clock.now).host());
    }
    assertThat(next.toString()).isEqualTo("aabacaa");
  }

  @Test
  void equalWeightsSplitThreeHundredPicksExactlyAndRotateStrictly() {
    PoolRouter r =
        router(
            RoutingPolicy.RoundRobin,
            OutlierPolicy.DEFAULT,
            clock,
            new java.util.Random(1),
            member("k1", 1.0),
            member("k2", 1.0),
            member("k3", 1.0));
    List<String> seq = picks(r, 300);
    assertThat(seq.subList(0, 6)).containsExactly("k1", "k2", "k3", "k1", "k2", "k3");
    Map<String, Long> counts =
        seq.stream().collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    assertThat(counts)
        .containsExactlyInAnyOrderEntriesOf(Map.of("k1", 100L, "k2", 100L, "k3", 100L));
  }

  @Test
  void fractionalWeightsKeepTheirRatioExactly() {
    PoolRouter r =
        router(
            RoutingPolicy.RoundRobin,
            OutlierPolicy.DEFAULT,
            clock,
            new java.util.Random(1),
            member("a", 0.3),
            member("b", 0.1));
    Map<String, Long> counts =
        picks(r, 400).stream()
            .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    assertThat(counts).containsExactlyInAnyOrderEntriesOf(Map.of("a", 300L, "b", 100L));
  }

  @Test
  void membersWithoutWeightOrNotAdmittedGetNothing() {
    PoolRouter r =
        router(
            RoutingPolicy.RoundRobin,
            OutlierPolicy.DEFAULT,
            clock,
            new java.util.Random(1),
            member("k1", 1.0),
            member("zero", 0.0),
            member("sick", 1.0, MemberState.Unhealthy),
            member("leaving", 1.0, MemberState.Draining),
            member("slow", 0.5, MemberState.Degraded));
    Map<String, Long> counts =
        picks(r, 300).stream()
            .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
    assertThat(counts).containsExactlyInAnyOrderEntriesOf(Map.of("k1", 200L, "slow", 100L));
    assertThat(r.routableCount()).isEqualTo(2);
  }

  @Test
  void triedMembersAreSkippedWithoutBuildingUpAScore() {
    PoolRouter r =
        PoolRouter.create(
            "ns/p",
            Fixtures.settings(RoutingPolicy.RoundRobin, OutlierPolicy.DEFAULT),
            List.of(member("a", 1), member("b", 1), member("c", 1)),
            null,
            clock,
            new java.util.Random(1),
            EjectionEvents.NONE);
    Endpoint first = r.pick(Set.of());
    assertThat(first.host()).isEqualTo("a");
    // A retry of a request that failed on "b" never lands on b.
    Endpoint bEndpoint = r.endpoints().get(1);
    SmoothWeightedRoundRobin swrr = (SmoothWeightedRoundRobin) r.balancer();
    long bScore = swrr.score(bEndpoint);
    assertThat(bScore).isEqualTo(1000);
    for (int i = 0; i < 10; i++) {
      assertThat(r.pick(Set.of(bEndpoint)).host()).isNotEqualTo("b");
    }
    assertThat(swrr.score(bEndpoint)).isEqualTo(bScore);
    assertThat(r.pick(Set.of(r.endpoints().toArray(new Endpoint[0])))).isNull();
    assertThat(r.endpoints().stream().mapToLong(swrr::score).sum()).isZero();
  }

  @Test
  void aNewSnapshotKeepsTheRotationOfMembersThatStay() {
    PoolRouter r1 =
        router(
            RoutingPolicy.RoundRobin,
            OutlierPolicy.DEFAULT,
            clock,
            new java.util.Random(1),
            member("k1", 1.0),
            member("k2", 1.0),
            member("k3", 1.0));
    assertThat(picks(r1, 1)).containsExactly("k1");
    PoolRouter r2 =
        PoolRouter.create(
            "ns/pool",
            r1.settings(),
            List.of(member("k1", 1.0), member("k2", 1.0), member("k3", 1.0)),
            r1,
            clock,
            new java.util.Random(1),
            EjectionEvents.NONE);
    r2.activate();
    assertThat(r2.endpoints().get(0)).isSameAs(r1.endpoints().get(0));
    assertThat(picks(r2, 2)).containsExactly("k2", "k3");
  }
}
