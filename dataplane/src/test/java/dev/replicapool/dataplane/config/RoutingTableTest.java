package dev.replicapool.dataplane.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import dev.replicapool.dataplane.policy.RequestPolicy;
import dev.replicapool.dataplane.policy.RetryPolicy;
import dev.replicapool.dataplane.routing.EjectionEvents;
import dev.replicapool.dataplane.routing.OutlierPolicy;
import dev.replicapool.dataplane.routing.PoolRouter;
import dev.replicapool.dataplane.routing.RouterSettingsBuilder;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

public class RoutingTableTest {
  public static PoolRuntime pool(String name, Integer port, String... hosts) {
    PoolSnapshot s =
        PoolSnapshotBuilder.builder()
            .pool(name)
            .version(1)
            .policy(RoutingPolicy.RoundRobin)
            .hosts(List.of(hosts))
            .port(port)
            .members(List.of())
            .build();
    PoolRouter r =
        PoolRouter.create(
            name,
            RouterSettingsBuilder.builder()
                .policy(RoutingPolicy.RoundRobin)
                .outlier(OutlierPolicy.DEFAULT)
                .ewmaTauMillis(10_000)
                .defaultLatencyMillis(100)
                .failurePenaltyMillis(1000)
                .build(),
            List.of(),
            null,
            System::nanoTime,
            new Random(1),
            EjectionEvents.NONE);
    return new PoolRuntime(
        s,
        r,
        List.of(hosts),
        port,
        null,
        RetryPolicy.DEFAULT,
        null,
        RequestPolicy.defaults(30_000_000_000L, System::nanoTime));
  }

  @Test
  void exactBeatsWildcardAndTheLongestWildcardWins() {
    RoutingTable t =
        RoutingTable.EMPTY
            .with(pool("a/exact", null, "api.shop.example"))
            .with(pool("a/shop", null, "*.shop.example"))
            .with(pool("a/eu", null, "*.eu.shop.example"));
    assertThat(t.poolForHost("api.shop.example").name()).isEqualTo("a/exact");
    assertThat(t.poolForHost("API.Shop.Example:8080").name()).isEqualTo("a/exact");
    assertThat(t.poolForHost("api.shop.example.").name()).isEqualTo("a/exact");
    assertThat(t.poolForHost("www.shop.example").name()).isEqualTo("a/shop");
    assertThat(t.poolForHost("x.eu.shop.example").name()).isEqualTo("a/eu");
    assertThat(t.poolForHost("a.b.eu.shop.example").name()).isEqualTo("a/eu");
    assertThat(t.poolForHost("shop.example")).isNull();
    assertThat(t.poolForHost("evilshop.example")).isNull();
    assertThat(t.poolForHost(null)).isNull();
    assertThat(t.poolForHost("")).isNull();
  }

  @Test
  void portsAndRemoval() {
    RoutingTable t = RoutingTable.EMPTY.with(pool("a/p", 18080, "p.example"));
    assertThat(t.poolForPort(18080).name()).isEqualTo("a/p");
    assertThat(t.poolForPort(18081)).isNull();
    RoutingTable without = t.without("a/p");
    assertThat(without.poolForPort(18080)).isNull();
    assertThat(without.poolForHost("p.example")).isNull();
    assertThat(without.without("a/p")).isSameAs(without);
  }

  @Test
  void aHostOrPortOfAnotherPoolIsRefusedButAPoolMayKeepItsOwn() {
    RoutingTable t = RoutingTable.EMPTY.with(pool("a/one", 18080, "one.example"));
    assertThatThrownBy(() -> t.with(pool("a/two", null, "one.example")))
        .hasMessage("host one.example is already routed to pool a/one");
    assertThatThrownBy(() -> t.with(pool("a/two", 18080, "two.example")))
        .hasMessage("port 18080 is already the port of pool a/one");
    RoutingTable replaced = t.with(pool("a/one", 18080, "one.example", "uno.example"));
    assertThat(replaced.poolForHost("uno.example").name()).isEqualTo("a/one");
    assertThat(replaced.pools()).hasSize(1);
  }

  @Test
  void anEditChangesManyPoolsInOneNewTableAndLeavesTheOldOneAlone() {
    RoutingTable before =
        RoutingTable.EMPTY
            .with(pool("a/old", 18080, "old.example", "*.old.example"))
            .with(pool("a/keep", null, "keep.example"));
    RoutingTable.Editor edit = before.edit();
    edit.remove("a/old");
    // What the removed pool held is free again within the same edit.
    edit.put(pool("a/new", 18080, "old.example", "*.old.example"));
    edit.put(pool("a/more", null, "more.example"));
    assertThatThrownBy(() -> edit.put(pool("a/thief", null, "keep.example")))
        .hasMessage("host keep.example is already routed to pool a/keep");
    assertThatThrownBy(() -> edit.put(pool("a/thief", null, "*.old.example")))
        .hasMessage("host *.old.example is already routed to pool a/new");
    RoutingTable after = edit.build();

    assertThat(after.pools().keySet()).containsExactlyInAnyOrder("a/new", "a/more", "a/keep");
    assertThat(after.sortedPools().keySet()).containsExactly("a/keep", "a/more", "a/new");
    assertThat(after.poolForHost("x.old.example").name()).isEqualTo("a/new");
    assertThat(after.poolForPort(18080).name()).isEqualTo("a/new");
    assertThat(after.pool("a/keep")).isSameAs(before.pool("a/keep"));
    assertThat(before.pools().keySet()).containsExactlyInAnyOrder("a/old", "a/keep");
    assertThat(before.poolForHost("x.old.example").name()).isEqualTo("a/old");
    assertThatThrownBy(() -> edit.put(pool("a/late", null)))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aReplacedPoolIsFoundThroughItsWildcardAsTheNewRuntime() {
    RoutingTable t = RoutingTable.EMPTY.with(pool("a/w", null, "*.w.example"));
    PoolRuntime second = pool("a/w", null, "*.w.example");
    RoutingTable replaced = t.with(second);
    assertThat(replaced.poolForHost("x.w.example")).isSameAs(second);
    RoutingTable moved = replaced.with(pool("a/w", null, "*.v.example"));
    assertThat(moved.poolForHost("x.w.example")).isNull();
    assertThat(moved.poolForHost("x.v.example").name()).isEqualTo("a/w");
  }

  @Test
  void normalizesHostHeaders() {
    assertThat(RoutingTable.normalizeHost(" Foo.Example:443 ")).isEqualTo("foo.example");
    assertThat(RoutingTable.normalizeHost("[::1]:8080")).isEqualTo("[::1]");
    assertThat(RoutingTable.normalizeHost(":80")).isNull();
  }
}
