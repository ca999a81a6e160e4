package dev.replicapool.dataplane.routing;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

final class Fixtures {
  private Fixtures() {}

  /** A clock the test moves by hand, in nanoseconds. */
  static final class FakeClock implements java.util.function.LongSupplier {
    long now = 1_000_000_000L;

    @Override
    public long getAsLong() {
      return now;
    }

    void advanceMillis(long millis) {
      now += millis * 1_000_000L;
    }
  }

  /** A Random whose nextDouble() returns the given values in turn. */
  static Random scripted(double... values) {
    return new Random() {
      int i;

      @Override
      public double nextDouble() {
        return values[i++ % values.length];
      }
    };
  }

  static MemberSnapshot member(String name, double weight) {
    return member(name, weight, MemberState.Healthy);
  }

  static MemberSnapshot member(String name, double weight, MemberState state) {
    return new MemberSnapshot(name, 8080, weight, state);
  }

  static RouterSettings settings(RoutingPolicy policy, OutlierPolicy outlier) {
    return RouterSettingsBuilder.builder()
        .policy(policy)
        .outlier(outlier)
        .ewmaTauMillis(10_000)
        .defaultLatencyMillis(100)
        .failurePenaltyMillis(1_000)
        .build();
  }

  static PoolRouter router(
      RoutingPolicy policy,
      OutlierPolicy outlier,
      FakeClock clock,
      Random random,
      MemberSnapshot... members) {
    return PoolRouter.create(
        "ns/pool",
        settings(policy, outlier),
        List.of(members),
        null,
        clock,
        random,
        EjectionEvents.NONE);
  }

  static Endpoint endpoint(String name, double weight, FakeClock clock) {
    return new Endpoint(
        name, 8080, weight, MemberState.Healthy, new PeakEwma(10_000, 100, clock.now));
  }

  /** Host names of n picks in a row. */
  static List<String> picks(PoolRouter router, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Endpoint e = router.pick(Set.of());
      out.add(e == null ? "-" : e.host());
    }
    return out;
  }
}
