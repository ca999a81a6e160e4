package dev.replicapool.dataplane.routing;

import static dev.replicapool.dataplane.routing.Fixtures.member;
import static dev.replicapool.dataplane.routing.Fixtures.picks;
import static dev.replicapool.dataplane.routing.Fixtures.router;
import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.OutlierDetection;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OutlierDetectionTest {
  final Fixtures.FakeClock clock = new Fixtures.FakeClock();
  final OutlierPolicy defaults = OutlierPolicy.DEFAULT; // 5 failures, 1 s base, 30 s max, 50 %

  PoolRouter threeMembers(OutlierPolicy policy) {
    return router(
        RoutingPolicy.RoundRobin,
        policy,
        clock,
        new Random(1),
        member("k1", 1.0),
        member("k2", 1.0),
        member("k3", 1.0));
  }

  @Test
  void defaultsComeFromTheCrd() {
    assertThat(defaults).isEqualTo(new OutlierPolicy(5, 1000, 30_000, 50));
    OutlierDetection partial = new OutlierDetection();
    partial.consecutiveFailures = 2;
    partial.maxEjectionMillis = null;
    assertThat(OutlierPolicy.from(partial)).isEqualTo(new OutlierPolicy(2, 1000, 30_000, 50));
  }

  @Test
  void fiveFailuresInARowEjectAndASuccessResetsTheCount() {
    PoolRouter r = threeMembers(defaults);
    Endpoint k2 = r.endpoints().get(1);
    for (int i = 0; i < 4; i++) {
      assertThat(r.failure(k2, 0)).as("failure %d", i + 1).isFalse();
    }
    r.success(k2, 1_000_000);
    for (int i = 0; i < 4; i++) {
      assertThat(r.failure(k2, 0)).isFalse();
    }
    assertThat(r.failure(k2, 0)).as("fifth in a row").isTrue();
    assertThat(r.ejectedCount()).isEqualTo(1);
    assertThat(r.routableCount()).isEqualTo(2);
    assertThat(picks(r, 6)).doesNotContain("k2");
    PoolRouter.MemberView view = r.view().get(1);
    assertThat(view.ejected()).isTrue();
    assertThat(view.ejectedForMillis()).isEqualTo(1000);
    assertThat(view.ejections()).isEqualTo(1);
  }

  @Test
  void ejectionsGrowByBaseUpToMaxAndProbationReejectsOnTheFirstFailure() {
    PoolRouter r = threeMembers(new OutlierPolicy(3, 1000, 2500, 50));
    Endpoint k2 = r.endpoints().get(1);
    List<Long> lengths = new ArrayList<>();
    for (int round = 0; round < 4; round++) {
      int failures = round == 0 ? 3 : 1; // after the first ejection: probation
      for (int i = 0; i < failures; i++) {
        r.failure(k2, 0);
      }
      assertThat(r.view().get(1).ejected()).as("round %d", round).isTrue();
      lengths.add(r.view().get(1).ejectedForMillis());
      clock.advanceMillis(lengths.get(round) - 1);
      assertThat(r.view().get(1).ejected()).isTrue();
      clock.advanceMillis(1);
      assertThat(r.view().get(1).ejected()).as("back after %d ms", lengths.get(round)).isFalse();
    }
    assertThat(lengths).containsExactly(1000L, 2000L, 2500L, 2500L);

    // Back on probation, a success ends probation: one failure no longer ejects.
    r.success(k2, 1_000_000);
    assertThat(r.failure(k2, 0)).isFalse();
  }

  @Test
  void ejectionLengthStartsOverAfterBehavingLongerThanTheMaximum() {
    PoolRouter r = threeMembers(new OutlierPolicy(1, 1000, 5000, 50));
    Endpoint k2 = r.endpoints().get(1);
    r.failure(k2, 0);
    clock.advanceMillis(1000);
    r.failure(k2, 0);
    assertThat(r.view().get(1).ejectedForMillis()).isEqualTo(2000);
    clock.advanceMillis(2000);
    assertThat(r.view().get(1).ejected()).isFalse();
    r.success(k2, 0);
    clock.advanceMillis(5001);
    r.failure(k2, 0);
    assertThat(r.view().get(1).ejectedForMillis()).isEqualTo(1000);
  }

  @Test
  void neverMoreThanTheAllowedShareIsEjected() {
    PoolRouter r = threeMembers(defaults); // 50 % of 3 -> 1
    Endpoint k1 = r.endpoints().get(0);
    Endpoint k2 = r.endpoints().get(1);
    for (int i = 0; i < 5; i++) {
      r.failure(k2, 0);
    }
    for (int i = 0; i < 50; i++) {
      assertThat(r.failure(k1, 0)).isFalse();
    }
    assertThat(r.ejectedCount()).isEqualTo(1);
    assertThat(r.routableCount()).isEqualTo(2);
    // Once k2 is back, k1 (still failing) can take its turn.
    clock.advanceMillis(1000);
    assertThat(r.failure(k1, 0)).isTrue();
  }

  @Test
  void maxEjectedCountsSmallPoolsSensibly() {
    assertThat(new OutlierPolicy(5, 1000, 30_000, 50).maxEjected(3)).isEqualTo(1);
    assertThat(new OutlierPolicy(5, 1000, 30_000, 50).maxEjected(4)).isEqualTo(2);
    assertThat(new OutlierPolicy(5, 1000, 30_000, 10).maxEjected(3)).isEqualTo(1);
    assertThat(new OutlierPolicy(5, 1000, 30_000, 10).maxEjected(2)).isEqualTo(1);
    assertThat(new OutlierPolicy(5, 1000, 30_000, 50).maxEjected(1)).isZero();
    assertThat(new OutlierPolicy(5, 1000, 30_000, 100).maxEjected(1)).isEqualTo(1);
    assertThat(new OutlierPolicy(5, 1000, 30_000, 0).maxEjected(10)).isZero();
    assertThat(new OutlierPolicy(0, 1000, 30_000, 50).maxEjected(10)).isZero();
  }

  @Test
  void turnedOffMeansNeverEjected() {
    PoolRouter r = threeMembers(new OutlierPolicy(0, 1000, 30_000, 50));
    for (int i = 0; i < 100; i++) {
      assertThat(r.failure(r.endpoints().get(1), 0)).isFalse();
    }
    assertThat(r.routableCount()).isEqualTo(3);
  }

  @Test
  void ejectionSurvivesANewSnapshotOfThePool() {
    PoolRouter r1 = threeMembers(defaults);
    for (int i = 0; i < 5; i++) {
      r1.failure(r1.endpoints().get(1), 0);
    }
    PoolRouter r2 =
        PoolRouter.create(
            "ns/pool",
            r1.settings(),
            List.of(member("k1", 1.0), member("k2", 0.5), member("k4", 1.0)),
            r1,
            clock,
            new Random(1),
            EjectionEvents.NONE);
    // Built but not installed: the live router's k2 keeps its weight.
    assertThat(r1.view().get(1).weight()).isEqualTo(1.0);
    r2.activate();
    assertThat(r2.view())
        .extracting(PoolRouter.MemberView::address, PoolRouter.MemberView::ejected)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("k1:8080", false),
            org.assertj.core.groups.Tuple.tuple("k2:8080", true),
            org.assertj.core.groups.Tuple.tuple("k4:8080", false));
    assertThat(r2.view().get(1).weight()).isEqualTo(0.5);
  }
}
