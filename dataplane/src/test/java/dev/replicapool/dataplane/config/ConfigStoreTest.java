package dev.replicapool.dataplane.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import dev.replicapool.controlplane.SnapshotApplier.Change;
import dev.replicapool.dataplane.routing.EjectionEvents;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConfigStoreTest {
  final Vertx vertx = Vertx.vertx();
  final ConfigStore store =
      new ConfigStore(
          vertx, Set.of(9901), System::nanoTime, () -> new Random(1), p -> EjectionEvents.NONE);

  @AfterEach
  void close() {
    vertx.close().await();
  }

  static PoolSnapshot snapshot(
      String pool, long version, List<String> hosts, Integer port, MemberSnapshot... ms) {
    return PoolSnapshotBuilder.builder()
        .pool(pool)
        .version(version)
        .policy(RoutingPolicy.RoundRobin)
        .hosts(hosts)
        .port(port)
        .members(List.of(ms))
        .build();
  }

  static MemberSnapshot m(int port, double weight) {
    return new MemberSnapshot("10.0.0.1", port, weight, MemberState.Healthy);
  }

  String failure(Future<Void> f) {
    return f.transform(ar -> Future.succeededFuture(ar.failed() ? ar.cause().getMessage() : null))
        .await();
  }

  @Test
  void appliesAtomicallyAndKeepsMemberStateAcrossVersions() {
    assertThat(store.firstSnapshotApplied()).isFalse();
    store.apply(snapshot("a/p", 1, List.of("p.example"), null, m(1, 1), m(2, 1))).await();
    assertThat(store.firstSnapshotApplied()).isTrue();
    RoutingTable first = store.table();
    var k1 = first.pool("a/p").router().endpoints().get(0);
    store.apply(snapshot("a/p", 2, List.of("p.example"), null, m(1, 0.5), m(3, 1))).await();
    RoutingTable second = store.table();
    assertThat(second).isNotSameAs(first);
    assertThat(second.pool("a/p").version()).isEqualTo(2);
    assertThat(second.pool("a/p").router().endpoints().get(0)).isSameAs(k1);
    assertThat(k1.weight()).isEqualTo(0.5);
    assertThat(first.pool("a/p").version()).isEqualTo(1); // the old table is untouched
  }

  @Test
  void rejectsWhatCannotBeServedAndKeepsTheTable() {
    store.apply(snapshot("a/p", 5, List.of("p.example"), 18080, m(1, 1))).await();
    RoutingTable before = store.table();
    assertThat(failure(store.apply(snapshot("a/p", 4, List.of("p.example"), null, m(1, 1)))))
        .contains("older than the applied 5");
    assertThat(failure(store.apply(snapshot("a/q", 1, List.of("P.example"), null, m(1, 1)))))
        .isEqualTo("host p.example is already routed to pool a/p");
    assertThat(failure(store.apply(snapshot("a/q", 1, List.of(), 9901, m(1, 1)))))
        .contains("data plane's own ports");
    assertThat(failure(store.apply(snapshot("a/q", 1, List.of("bad host!"), null, m(1, 1)))))
        .contains("not a DNS name");
    assertThat(failure(store.apply(snapshot("a/q", 1, List.of(), null, m(1, 1), m(1, 0)))))
        .contains("listed twice");
    assertThat(failure(store.apply(snapshot("bad", 1, List.of(), null))))
        .contains("pool must be namespace/name");
    assertThat(store.table()).isSameAs(before);
  }

  @Test
  void aFailingObserverNacksAndIsToldToAbort() {
    List<String> calls = new ArrayList<>();
    store.addObserver(
        new TableObserver() {
          @Override
          public Future<Void> prepare(TableObserver.Change change) {
            calls.add("prepare");
            return change.next().poolForPort(18080) != null
                ? Future.failedFuture("port 18080 is in use")
                : Future.succeededFuture();
          }

          @Override
          public void abort(TableObserver.Change change) {
            calls.add("abort");
          }

          @Override
          public void installed(TableObserver.Change change) {
            calls.add("installed");
          }
        });
    store.apply(snapshot("a/ok", 1, List.of(), null, m(1, 1))).await();
    assertThat(failure(store.apply(snapshot("a/busy", 1, List.of(), 18080, m(1, 1)))))
        .isEqualTo("port 18080 is in use");
    assertThat(store.table().pool("a/busy")).isNull();
    assertThat(calls).containsExactly("prepare", "installed", "prepare", "abort");
    // A refused snapshot changes nothing live, not even the weight of a member it shares.
    var live = store.table().pool("a/ok").router().endpoints().get(0);
    assertThat(failure(store.apply(snapshot("a/ok", 2, List.of(), 18080, m(1, 0.25)))))
        .isEqualTo("port 18080 is in use");
    assertThat(store.table().pool("a/ok").version()).isEqualTo(1);
    assertThat(live.weight()).isEqualTo(1.0);
    store.apply(snapshot("a/ok", 3, List.of(), null, m(1, 0.25))).await();
    assertThat(store.table().pool("a/ok").router().endpoints().get(0)).isSameAs(live);
    assertThat(live.weight()).isEqualTo(0.25);
    calls.clear();
    store.remove("a/ok", 4).await();
    assertThat(store.table().pools()).isEmpty();
  }

  @Test
  void aBurstIsOneSwapAndAFailingChangeIsRefusedAlone() {
    List<TableObserver.Change> swaps = new ArrayList<>();
    store.addObserver(
        new TableObserver() {
          @Override
          public void installed(TableObserver.Change change) {
            swaps.add(change);
          }
        });
    store.apply(snapshot("a/gone", 1, List.of("gone.example"), null, m(1, 1))).await();
    swaps.clear();

    List<Future<Void>> results =
        store.applyAll(
            List.of(
                Change.apply(snapshot("a/one", 1, List.of("one.example"), null, m(1, 1))),
                Change.apply(snapshot("a/two", 1, List.of("one.example"), null, m(1, 1))),
                Change.remove("a/gone", 2),
                Change.apply(snapshot("a/three", 1, List.of("gone.example"), null, m(1, 1)))));

    assertThat(failure(results.get(0))).isNull();
    assertThat(failure(results.get(1)))
        .isEqualTo("host one.example is already routed to pool a/one");
    assertThat(failure(results.get(2))).isNull();
    assertThat(failure(results.get(3))).isNull();
    assertThat(swaps).hasSize(1);
    assertThat(swaps.get(0).pools()).containsExactlyInAnyOrder("a/one", "a/gone", "a/three");
    assertThat(store.table().pools().keySet()).containsExactlyInAnyOrder("a/one", "a/three");
  }

  @Test
  void aHostMovesInOneBatchWhateverTheOrderOfItsTwoPools() {
    store.apply(snapshot("a/x", 1, List.of("h.example", "x.example"), null, m(1, 1))).await();

    // Y takes h.example before X, later in the batch, gives it up.
    List<Future<Void>> results =
        store.applyAll(
            List.of(
                Change.apply(snapshot("a/y", 1, List.of("h.example"), null, m(2, 1))),
                Change.apply(snapshot("a/x", 2, List.of("x.example"), null, m(1, 1)))));

    assertThat(failure(results.get(0))).isNull();
    assertThat(failure(results.get(1))).isNull();
    assertThat(store.table().poolForHost("h.example").name()).isEqualTo("a/y");
    assertThat(store.table().poolForHost("x.example").name()).isEqualTo("a/x");
  }

  @Test
  void twoPoolsSwapHostsAndPortsInOneBatch() {
    store.apply(snapshot("a/x", 1, List.of("one.example"), 18081, m(1, 1))).await();
    store.apply(snapshot("a/y", 1, List.of("two.example"), 18082, m(2, 1))).await();

    List<Future<Void>> results =
        store.applyAll(
            List.of(
                Change.apply(snapshot("a/x", 2, List.of("two.example"), 18082, m(1, 1))),
                Change.apply(snapshot("a/y", 2, List.of("one.example"), 18081, m(2, 1)))));

    assertThat(failure(results.get(0))).isNull();
    assertThat(failure(results.get(1))).isNull();
    assertThat(store.table().poolForHost("one.example").name()).isEqualTo("a/y");
    assertThat(store.table().poolForPort(18082).name()).isEqualTo("a/x");
  }

  @Test
  void aSwapHalfOfWhichIsRefusedKeepsBothPoolsAsTheyWere() {
    store.apply(snapshot("a/x", 1, List.of("one.example"), null, m(1, 1))).await();
    store.apply(snapshot("a/y", 5, List.of("two.example"), null, m(2, 1))).await();

    // Y's half is older than what runs: X may not take two.example, which Y keeps.
    List<Future<Void>> results =
        store.applyAll(
            List.of(
                Change.apply(snapshot("a/x", 2, List.of("two.example"), null, m(1, 1))),
                Change.apply(snapshot("a/y", 3, List.of("one.example"), null, m(2, 1)))));

    assertThat(failure(results.get(0))).isEqualTo("host two.example is already routed to pool a/y");
    assertThat(failure(results.get(1))).contains("older than the applied 5");
    assertThat(store.table().poolForHost("one.example").name()).isEqualTo("a/x");
    assertThat(store.table().poolForHost("two.example").name()).isEqualTo("a/y");
  }

  @Test
  void whenAnObserverRefusesABurstOnlyTheCulpritIsRefused() {
    List<String> calls = new ArrayList<>();
    store.addObserver(
        new TableObserver() {
          @Override
          public Future<Void> prepare(TableObserver.Change change) {
            calls.add("prepare " + change.pools().size());
            return change.next().pool("a/busy") != null
                ? Future.failedFuture("port 18080 is in use")
                : Future.succeededFuture();
          }

          @Override
          public void abort(TableObserver.Change change) {
            calls.add("abort");
          }

          @Override
          public void installed(TableObserver.Change change) {
            calls.add("installed " + change.pools());
          }
        });

    List<Future<Void>> results =
        store.applyAll(
            List.of(
                Change.apply(snapshot("a/ok", 1, List.of(), null, m(1, 1))),
                Change.apply(snapshot("a/busy", 1, List.of(), 18080, m(1, 1))),
                Change.apply(snapshot("a/fine", 1, List.of(), null, m(1, 1)))));

    assertThat(failure(results.get(0))).isNull();
    assertThat(failure(results.get(1))).isEqualTo("port 18080 is in use");
    assertThat(failure(results.get(2))).isNull();
    assertThat(store.table().pools().keySet()).containsExactlyInAnyOrder("a/ok", "a/fine");
    assertThat(calls)
        .containsExactly(
            "prepare 3",
            "abort",
            "prepare 1",
            "installed [a/ok]",
            "prepare 1",
            "abort",
            "prepare 1",
            "installed [a/fine]");
  }
}
