package dev.replicapool.dataplane.admin;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.routing.Endpoint;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The gauges that follow the routing table, read from the live table at scrape time: per pool
 * {@code replicapool_snapshot_version}, {@code replicapool_routable_members}, {@code
 * replicapool_ejected_members}, {@code replicapool_panic} and {@code replicapool_queue_depth}, per
 * member {@code replicapool_member_inflight} and {@code replicapool_member_utilization} (the load
 * the member reported in its answers, while the data plane still uses it: absent otherwise). As
 * Micrometer gauges they cost a registration and a removal per member on every push: 37 % of the
 * data plane's CPU samples while 1,000 pools of new members arrived (docs/BENCHMARKS.md, item 6).
 * Registered by {@link DataPlaneMetrics} with the Prometheus registry under its meters.
 */
final class TableGauges implements MultiCollector {
  private static final String VERSION = "replicapool_snapshot_version";
  private static final String ROUTABLE = "replicapool_routable_members";
  private static final String EJECTED = "replicapool_ejected_members";
  private static final String INFLIGHT = "replicapool_member_inflight";
  private static final String PANIC = "replicapool_panic";
  private static final String QUEUE = "replicapool_queue_depth";
  private static final String UTILIZATION = "replicapool_member_utilization";

  private final Supplier<RoutingTable> table;
  private final LongSupplier clock;

  /** {@code clock}: the forwarding's, in which members' load reports are stamped. */
  TableGauges(Supplier<RoutingTable> table, LongSupplier clock) {
    this.table = table;
    this.clock = clock;
  }

  @Override
  public MetricSnapshots collect() {
    GaugeSnapshot.Builder version =
        gauge(VERSION, "Version of the pool's snapshot this data plane serves");
    GaugeSnapshot.Builder routable = gauge(ROUTABLE, "Members of the pool that take requests now");
    GaugeSnapshot.Builder ejected =
        gauge(EJECTED, "Members of the pool ejected by this data plane now");
    GaugeSnapshot.Builder inflight = gauge(INFLIGHT, "Requests in flight on a member");
    GaugeSnapshot.Builder panic =
        gauge(PANIC, "1 while too few members are routable and the pool routes to all of them");
    GaugeSnapshot.Builder queue =
        gauge(QUEUE, "Requests waiting for a member below the pool's in-flight limit");
    GaugeSnapshot.Builder utilization =
        gauge(UTILIZATION, "The member's last load report (ORCA utilization, 1 = at capacity)");
    long now = clock.getAsLong();
    for (PoolRuntime p : table.get().sortedPools().values()) {
      Labels pool = Labels.of("pool", p.name());
      if (p.requests().queue() != null) {
        queue.dataPoint(point(p.requests().queue().depth(), pool));
      }
      version.dataPoint(point(p.version(), pool));
      routable.dataPoint(point(p.router().routableCount(), pool));
      ejected.dataPoint(point(p.router().ejectedCount(), pool));
      panic.dataPoint(point(p.router().panic() ? 1 : 0, pool));
      for (Endpoint e : p.router().endpoints()) {
        Labels member = Labels.of("member", e.address(), "pool", p.name());
        inflight.dataPoint(point(e.inflight(), member));
        double u = e.utilization(now);
        if (!Double.isNaN(u)) {
          utilization.dataPoint(point(u, member));
        }
      }
    }
    return MetricSnapshots.of(
        version.build(),
        routable.build(),
        ejected.build(),
        inflight.build(),
        panic.build(),
        queue.build(),
        utilization.build());
  }

  @Override
  public List<String> getPrometheusNames() {
    return List.of(VERSION, ROUTABLE, EJECTED, INFLIGHT, PANIC, QUEUE, UTILIZATION);
  }

  private static GaugeSnapshot.Builder gauge(String name, String help) {
    return GaugeSnapshot.builder().name(name).help(help);
  }

  private static GaugeSnapshot.GaugeDataPointSnapshot point(double value, Labels labels) {
    return GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).labels(labels).build();
  }
}
