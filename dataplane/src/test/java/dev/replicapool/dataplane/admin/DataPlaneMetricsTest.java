package dev.replicapool.dataplane.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import dev.replicapool.dataplane.config.ConfigStore;
import dev.replicapool.dataplane.routing.Endpoint;
import io.vertx.core.Vertx;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DataPlaneMetricsTest {
  final Vertx vertx = Vertx.vertx();
  final ConfigStore[] store = new ConfigStore[1];
  final long[] now = {0};
  final DataPlaneMetrics metrics = new DataPlaneMetrics(() -> store[0].table(), () -> now[0]);

  {
    store[0] =
        new ConfigStore(vertx, Set.of(), System::nanoTime, () -> new Random(1), metrics::eventsFor);
    store[0].addObserver(metrics);
  }

  @AfterEach
  void close() {
    metrics.close();
    vertx.close().await();
  }

  static PoolSnapshot pool(String name, long version, int... ports) {
    List<MemberSnapshot> members =
        java.util.Arrays.stream(ports)
            .mapToObj(p -> new MemberSnapshot("10.0.0.1", p, 1.0, MemberState.Healthy))
            .toList();
    return PoolSnapshotBuilder.builder()
        .pool(name)
        .version(version)
        .policy(RoutingPolicy.RoundRobin)
        .hosts(List.of())
        .members(members)
        .build();
  }

  String scrape() {
    return metrics.scrape().toCompletableFuture().join();
  }

  static String inflight(String pool, int port) {
    return "replicapool_member_inflight{member=\"10.0.0.1:" + port + "\",pool=\"" + pool + "\"}";
  }

  @Test
  void aScrapeAfterASwapSeesExactlyTheMembersOfTheTable() {
    store[0].apply(pool("a/p", 1, 1, 2)).await();
    assertThat(scrape())
        .contains(inflight("a/p", 1), inflight("a/p", 2))
        .contains("replicapool_snapshot_version{pool=\"a/p\"} 1.0");

    store[0].apply(pool("a/p", 2, 2, 3)).await();
    assertThat(scrape())
        .doesNotContain(inflight("a/p", 1))
        .contains(inflight("a/p", 2), inflight("a/p", 3));

    store[0].remove("a/p", 3).await();
    assertThat(scrape()).doesNotContain("pool=\"a/p\"");

    // Back under the same names: new members, new gauges, not the removed ones.
    store[0].apply(pool("a/p", 4, 2)).await();
    assertThat(scrape())
        .contains(inflight("a/p", 2))
        .contains("replicapool_snapshot_version{pool=\"a/p\"} 4.0");
  }

  @Test
  void aMemberUtilizationIsItsLastLoadReportWhileTheDataPlaneUsesIt() {
    store[0].apply(pool("a/p", 1, 1, 2)).await();
    String reported = "replicapool_member_utilization{member=\"10.0.0.1:1\",pool=\"a/p\"}";
    assertThat(scrape()).doesNotContain("replicapool_member_utilization{");

    now[0] = 1_000;
    store[0].table().pools().get("a/p").router().endpoints().stream()
        .filter(e -> e.address().endsWith(":1"))
        .findFirst()
        .orElseThrow()
        .reportLoad(0.75, Double.NaN, now[0]);
    assertThat(scrape())
        .contains(reported + " 0.75")
        .doesNotContain("replicapool_member_utilization{member=\"10.0.0.1:2\"");

    now[0] += Endpoint.REPORT_TTL_NANOS + 1; // too old to balance by: not shown either
    assertThat(scrape()).doesNotContain(reported);
  }

  @Test
  void theFunctionCountersFollowTheirSourceAfterAGarbageCollection() {
    AtomicLong refused = new AtomicLong();
    metrics.clientConnections(() -> 0, refused::get); // a lambda only the metrics hold
    WeakReference<Object> canary = new WeakReference<>(new Object());
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              System.gc();
              return canary.get() == null;
            });
    refused.set(3);
    assertThat(scrape()).contains("replicapool_client_connections_refused_total 3.0");
  }
}
