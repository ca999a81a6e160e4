package dev.replicapool.dataplane.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.config.TableObserver;
import dev.replicapool.dataplane.routing.EjectionEvents;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.OutlierPolicy;
import dev.replicapool.dataplane.routing.PoolRouter;
import dev.replicapool.dataplane.routing.RouterSettingsBuilder;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MemberMetersTest {
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final MemberMeters meters = new MemberMeters(registry);

  static PoolRuntime pool(String name, PoolRuntime previous, int... ports) {
    List<MemberSnapshot> members =
        Arrays.stream(ports)
            .mapToObj(p -> new MemberSnapshot("10.0.0.1", p, 1.0, MemberState.Healthy))
            .toList();
    PoolSnapshot s =
        PoolSnapshotBuilder.builder()
            .pool(name)
            .version(previous == null ? 1 : previous.version() + 1)
            .policy(RoutingPolicy.RoundRobin)
            .hosts(List.of())
            .members(members)
            .build();
    PoolRouter router =
        PoolRouter.create(
            name,
            RouterSettingsBuilder.builder()
                .policy(RoutingPolicy.RoundRobin)
                .outlier(OutlierPolicy.DEFAULT)
                .ewmaTauMillis(10_000)
                .defaultLatencyMillis(100)
                .failurePenaltyMillis(1_000)
                .build(),
            members,
            previous == null ? null : previous.router(),
            System::nanoTime,
            new Random(1),
            EjectionEvents.NONE);
    return new PoolRuntime(s, router, List.of(), null, null, null, null, null);
  }

  static TableObserver.Change change(RoutingTable previous, RoutingTable next, String... pools) {
    return new TableObserver.Change(previous, next, Set.of(pools));
  }

  static Endpoint member(PoolRuntime p, int port) {
    return p.router().endpoints().stream().filter(e -> e.port() == port).findFirst().orElseThrow();
  }

  long upstreamTimers() {
    return registry.find("replicapool.upstream").timers().size();
  }

  @Test
  void aMemberHasMetersOnlyOnceTheTableHoldsIt() {
    PoolRuntime p = pool("a/p", null, 1);
    meters.attempt("a/p", member(p, 1), "2xx", 1_000);
    assertThat(upstreamTimers()).isZero();

    meters.follow(change(RoutingTable.EMPTY, RoutingTable.EMPTY.with(p), "a/p"));
    meters.attempt("a/p", member(p, 1), "2xx", 1_000);
    meters.attempt("a/p", member(p, 1), "reset", 1_000);
    meters.ejected("a/p", member(p, 1));

    assertThat(registry.get("replicapool.upstream").tags("outcome", "2xx").timer().count())
        .isEqualTo(1);
    assertThat(upstreamTimers()).isEqualTo(2);
    assertThat(
            registry
                .get("replicapool.ejections")
                .tags("pool", "a/p", "member", "10.0.0.1:1")
                .counter()
                .count())
        .isEqualTo(1);
  }

  @Test
  void theMetersOfMembersThatLeftAreHandedBackAndThoseThatStayAreKept() {
    PoolRuntime v1 = pool("a/p", null, 1, 2);
    RoutingTable t1 = RoutingTable.EMPTY.with(v1);
    assertThat(meters.follow(change(RoutingTable.EMPTY, t1, "a/p"))).isEmpty();
    meters.attempt("a/p", member(v1, 1), "2xx", 1_000);
    meters.attempt("a/p", member(v1, 2), "2xx", 1_000);

    PoolRuntime v2 = pool("a/p", v1, 2, 3);
    RoutingTable t2 = t1.with(v2);
    List<Map<String, Meter>> gone = meters.follow(change(t1, t2, "a/p"));

    assertThat(gone).hasSize(1);
    assertThat(gone.get(0).values())
        .singleElement()
        .satisfies(m -> assertThat(m.getId().getTag("member")).isEqualTo("10.0.0.1:1"));
    meters.attempt("a/p", member(v1, 1), "2xx", 1_000); // outlived its member: not counted
    meters.attempt("a/p", member(v2, 2), "2xx", 1_000); // the same member, carried over
    meters.attempt("a/p", member(v2, 3), "2xx", 1_000);
    assertThat(registry.get("replicapool.upstream").tags("member", "10.0.0.1:1").timer().count())
        .isEqualTo(1);
    assertThat(registry.get("replicapool.upstream").tags("member", "10.0.0.1:2").timer().count())
        .isEqualTo(2);
    assertThat(registry.get("replicapool.upstream").tags("member", "10.0.0.1:3").timer().count())
        .isEqualTo(1);

    // The pool leaves: every member's map comes back, also an empty one.
    assertThat(meters.follow(change(t2, t2.without("a/p"), "a/p"))).hasSize(2);
  }

  @Test
  void aSwapThatLeavesAPoolAsItWasForgetsNothing() {
    PoolRuntime a = pool("a/a", null, 1);
    RoutingTable t1 = RoutingTable.EMPTY.with(a);
    meters.follow(change(RoutingTable.EMPTY, t1, "a/a"));
    RoutingTable t2 = t1.with(pool("a/b", null, 2));

    assertThat(meters.follow(change(t1, t2, "a/b"))).isEmpty();
    meters.attempt("a/a", member(a, 1), "2xx", 1_000);
    assertThat(upstreamTimers()).isEqualTo(1);
  }
}
