package dev.replicapool.dataplane.routing;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;

/** Pool routers for tests outside the routing package. */
public final class TestRouters {
  private TestRouters() {}

  /**
   * A round-robin pool "ns/pool" of {@code members} healthy members of weight 1 (10.0.0.1:8080,
   * 10.0.0.2:8080, ...) on {@code clock}, default outlier detection, a fixed random seed.
   */
  public static PoolRouter roundRobin(int members, LongSupplier clock) {
    List<MemberSnapshot> ms = new ArrayList<>();
    for (int i = 1; i <= members; i++) {
      ms.add(new MemberSnapshot("10.0.0." + i, 8080, 1.0, MemberState.Healthy));
    }
    RouterSettings settings =
        RouterSettingsBuilder.builder()
            .policy(RoutingPolicy.RoundRobin)
            .outlier(OutlierPolicy.DEFAULT)
            .ewmaTauMillis(10_000)
            .defaultLatencyMillis(50)
            .failurePenaltyMillis(500)
            .build();
    return PoolRouter.create(
        "ns/pool", settings, ms, null, clock, new Random(1), new EjectionEvents() {});
  }
}
