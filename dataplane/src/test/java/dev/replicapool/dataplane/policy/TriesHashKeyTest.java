package dev.replicapool.dataplane.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.ConsistentHash;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.dataplane.routing.EjectionEvents;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.HashKey;
import dev.replicapool.dataplane.routing.HashPolicy;
import dev.replicapool.dataplane.routing.OutlierPolicy;
import dev.replicapool.dataplane.routing.PoolRouter;
import dev.replicapool.dataplane.routing.RouterSettingsBuilder;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The request's hash key rides with its tries: every try of a request is picked by it. */
class TriesHashKeyTest {
  @Test
  void everyTryOfARequestIsPickedByItsKeyAndARetryGoesElsewhere() {
    PoolRouter r =
        PoolRouter.create(
            "ns/p",
            RouterSettingsBuilder.builder()
                .policy(RoutingPolicy.ConsistentHash)
                .outlier(OutlierPolicy.DEFAULT)
                .ewmaTauMillis(10_000)
                .defaultLatencyMillis(100)
                .failurePenaltyMillis(1_000)
                .hash(new HashPolicy("x-user", null, null, false, ConsistentHash.Algorithm.Maglev))
                .build(),
            List.of(
                new MemberSnapshot("a", 80, 1.0, MemberState.Healthy),
                new MemberSnapshot("b", 80, 1.0, MemberState.Healthy),
                new MemberSnapshot("c", 80, 1.0, MemberState.Healthy)),
            null,
            () -> 0L,
            new Random(1),
            EjectionEvents.NONE);
    for (String user : List.of("alice", "bob", "carol", "dave")) {
      long key = HashKey.hash(user);
      Endpoint owner = r.pick(Set.of(), key);
      Tries tries =
          new Tries(
              new RetryPolicy(2, false),
              RequestPolicy.defaults(30_000_000_000L, System::nanoTime),
              true,
              true,
              key);
      Endpoint first = tries.next(r);
      Endpoint second = tries.next(r);
      assertThat(first).as(user).isSameAs(owner);
      assertThat(second).isNotSameAs(first).isSameAs(r.pick(Set.of(first), key));
      assertThat(first.inflight()).isEqualTo(1);
      first.release();
      second.release();
    }
  }
}
