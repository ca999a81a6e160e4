package dev.replicapool.dataplane.admin;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.config.TableObserver;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.PoolRouter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Prometheus metrics of the data plane (Micrometer):
 *
 * <ul>
 *   <li>{@code replicapool_requests_seconds{pool,code}}: client requests by pool and status class;
 *   <li>{@code replicapool_upstream_seconds{pool,member,outcome}}: each try on a member, to its
 *       response headers or failure (outcome 2xx..5xx, connect_failure, reset, timeout);
 *   <li>{@code replicapool_hedges_total{pool,outcome}} (sent, won, lost, failed, denied), {@code
 *       replicapool_retry_budget_exhausted_total{pool}} (requests denied a retry or hedge), {@code
 *       replicapool_queue_total{pool,outcome}} (queued, admitted, timeout, overflow), {@code
 *       replicapool_queue_depth{pool}} (waiting now);
 *   <li>{@code replicapool_retries_total{pool,reason}}, {@code
 *       replicapool_ejections_total{pool,member}}, {@code replicapool_ejected_members{pool}};
 *   <li>{@code replicapool_member_inflight{pool,member}}, {@code
 *       replicapool_snapshot_version{pool}}, {@code replicapool_routable_members{pool}}, {@code
 *       replicapool_panic{pool}} (1 while the pool routes to all its members, its panic threshold
 *       crossed) (read from the table at scrape time, see {@link TableGauges});
 *   <li>{@code replicapool_control_plane_connected}, {@code replicapool_client_connections}, {@code
 *       replicapool_client_connections_refused_total}.
 * </ul>
 *
 * Meters of pools and members that leave the table are removed.
 */
public final class DataPlaneMetrics implements ProxyObserver, TableObserver {
  private static final Duration[] BUCKETS = {
    Duration.ofMillis(1),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5)
  };

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Supplier<RoutingTable> table;
  private final AtomicInteger controlPlaneConnected = new AtomicInteger();
  // Endpoint has identity equality: one entry per member object of the table.
  private final Map<Endpoint, Map<String, Meter>> memberMeters = new ConcurrentHashMap<>();
  // Per pool, by status class (status / 100): looked up on every response without building a key.
  // The array is shared by the event loops: AtomicReferenceArray publishes a registered timer
  // safely to the others, where a plain array would not.
  private final Map<String, AtomicReferenceArray<Timer>> requestTimers = new ConcurrentHashMap<>();
  private final Map<String, Counter> retryCounters = new ConcurrentHashMap<>();
  private final Map<String, Counter> policyCounters = new ConcurrentHashMap<>();

  // Removing a meter costs microseconds, and a burst of snapshots can drop the timers and counters
  // of thousands of members: that runs here, in order, so that a table swap (and the ACK the
  // operator waits for) never waits for it; scrapes run here too, after it. (Gauges need none of
  // this: TableGauges reads them from the table.)
  private final ExecutorService bookkeeping =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "replicapool-metrics");
            t.setDaemon(true);
            return t;
          });

  public DataPlaneMetrics(Supplier<RoutingTable> table) {
    this.table = table;
    Gauge.builder("replicapool.control.plane.connected", controlPlaneConnected, AtomicInteger::get)
        .description("1 while the stream to the operator is open")
        .register(registry);
    registry.getPrometheusRegistry().register(new TableGauges());
  }

  /**
   * The client connections of the traffic ports: open now, and closed because the limit was reached
   * ({@code --max-client-connections}).
   */
  public void clientConnections(IntSupplier open, LongSupplier refused) {
    Gauge.builder("replicapool.client.connections", open::getAsInt)
        .description("client connections open on the traffic ports")
        .register(registry);
    FunctionCounter.builder(
            "replicapool.client.connections.refused", refused, LongSupplier::getAsLong)
        .description("client connections closed at once because --max-client-connections were open")
        .register(registry);
  }

  /** Open upgrade tunnels (WebSocket and the like), all pools together. */
  public void tunnels(IntSupplier open) {
    Gauge.builder("replicapool.tunnels", open::getAsInt)
        .description("upgrade tunnels (WebSocket and the like) open now")
        .register(registry);
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /**
   * The Prometheus text, taken on the bookkeeping thread once the meters follow every table
   * installed so far: a scrape right after a swap sees its pools and members.
   */
  public CompletionStage<String> scrape() {
    return CompletableFuture.supplyAsync(registry::scrape, bookkeeping);
  }

  public void controlPlaneConnected(boolean connected) {
    controlPlaneConnected.set(connected ? 1 : 0);
  }

  /** Ejection events of one pool, for its router. */
  public PoolRouter.Events eventsFor(String pool) {
    return new PoolRouter.Events() {
      @Override
      public void ejected(Endpoint e, long millis) {
        Map<String, Meter> m = memberMeters.get(e);
        if (m == null) {
          return; // no longer in the table
        }
        Counter c =
            (Counter)
                m.computeIfAbsent(
                    "ejections",
                    k ->
                        Counter.builder("replicapool.ejections")
                            .description("Passive ejections of a member by this data plane")
                            .tags("pool", pool, "member", e.address())
                            .register(registry));
        c.increment();
      }
    };
  }

  @Override
  public void attempt(String pool, Endpoint member, String outcome, long nanos) {
    Map<String, Meter> m = memberMeters.get(member);
    if (m == null) {
      return; // a request that outlived its member's removal
    }
    // Keyed by the outcome itself ("2xx", "reset", ...), which no other meter of a member uses.
    Timer t =
        (Timer)
            m.computeIfAbsent(
                outcome,
                k ->
                    Timer.builder("replicapool.upstream")
                        .description("Tries on a member, to response headers or failure")
                        .tags("pool", pool, "member", member.address(), "outcome", outcome)
                        .serviceLevelObjectives(BUCKETS)
                        .register(registry));
    t.record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void retry(String pool, String reason) {
    retryCounters
        .computeIfAbsent(
            pool + "\n" + reason,
            k ->
                Counter.builder("replicapool.retries")
                    .description("Requests tried again on another member")
                    .tags("pool", pool, "reason", reason)
                    .register(registry))
        .increment();
  }

  @Override
  public void hedge(String pool, String outcome) {
    policyCounter("replicapool.hedges", "Hedged tries of requests", pool, "outcome", outcome);
  }

  @Override
  public void budgetExhausted(String pool) {
    policyCounter(
        "replicapool.retry.budget.exhausted",
        "Requests denied a retry or hedge because the pool's retry budget was spent",
        pool,
        null,
        null);
  }

  @Override
  public void queue(String pool, String outcome) {
    policyCounter(
        "replicapool.queue",
        "Requests that met every member at its in-flight limit",
        pool,
        "outcome",
        outcome);
  }

  private void policyCounter(String name, String help, String pool, String tag, String value) {
    policyCounters
        .computeIfAbsent(
            name + "\n" + pool + "\n" + value,
            k -> {
              Counter.Builder b = Counter.builder(name).description(help).tag("pool", pool);
              if (tag != null) {
                b.tag(tag, value);
              }
              return b.register(registry);
            })
        .increment();
  }

  @Override
  public void response(String pool, int status, long nanos) {
    int cls = Math.floorMod(status / 100, 10);
    AtomicReferenceArray<Timer> timers =
        requestTimers.computeIfAbsent(pool, k -> new AtomicReferenceArray<>(10));
    Timer t = timers.get(cls);
    if (t == null) {
      // Racing event loops both register: Micrometer hands both the same timer.
      t =
          Timer.builder("replicapool.requests")
              .description("Client requests by pool and status class")
              .tags("pool", pool, "code", cls + "xx")
              .serviceLevelObjectives(BUCKETS)
              .register(registry);
      timers.set(cls, t);
    }
    t.record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void installed(TableObserver.Change change) {
    // Only the pools this swap changed: walking every pool on every swap made applying N pools
    // O(N^2). Members leave first, so that a member that comes back under the same name gets
    // meters of its own rather than those about to be removed. The member maps change here (the
    // proxy looks them up); meters that must go are removed on the bookkeeping thread. Gauges
    // are not touched at all: TableGauges reads them from the table at scrape time.
    RoutingTable previous = change.previous();
    RoutingTable next = change.next();
    List<Map<String, Meter>> goneMembers = new ArrayList<>();
    List<String> gonePools = new ArrayList<>();
    for (String name : change.pools()) {
      PoolRuntime before = previous.pool(name);
      PoolRuntime now = next.pool(name);
      if (before == null || before == now) {
        continue;
      }
      forgetLeftMembers(before, now, goneMembers);
      if (now == null) {
        gonePools.add(name);
      }
    }
    addMemberMaps(change);
    if (goneMembers.isEmpty() && gonePools.isEmpty()) {
      return;
    }
    bookkeeping.execute(
        () -> {
          goneMembers.forEach(m -> m.values().forEach(registry::remove));
          gonePools.forEach(this::removePoolMeters);
        });
  }

  /**
   * Drops the member maps of the endpoints of {@code before} that {@code now} (null: the pool is
   * gone) no longer holds, and collects them in {@code goneMembers} for removal.
   */
  private void forgetLeftMembers(
      PoolRuntime before, PoolRuntime now, List<Map<String, Meter>> goneMembers) {
    Set<Endpoint> kept = Collections.newSetFromMap(new IdentityHashMap<>());
    if (now != null) {
      kept.addAll(now.router().endpoints());
    }
    for (Endpoint e : before.router().endpoints()) {
      if (!kept.contains(e)) {
        Map<String, Meter> gone = memberMeters.remove(e);
        // Empty or not: an event loop that looked the map up before this removal may still add
        // a meter to it; the bookkeeping task, running later, removes that one too.
        if (gone != null) {
          goneMembers.add(gone);
        }
      }
    }
  }

  /** A member map for every endpoint of the changed pools that has none yet. */
  private void addMemberMaps(TableObserver.Change change) {
    for (String name : change.pools()) {
      PoolRuntime now = change.next().pool(name);
      if (now != null) {
        for (Endpoint e : now.router().endpoints()) {
          memberMeters.computeIfAbsent(e, k -> new ConcurrentHashMap<>());
        }
      }
    }
  }

  /** Removes the request timers, retry and policy counters of a pool that is gone. */
  private void removePoolMeters(String name) {
    AtomicReferenceArray<Timer> timers = requestTimers.remove(name);
    if (timers != null) {
      for (int i = 0; i < timers.length(); i++) {
        if (timers.get(i) != null) {
          registry.remove(timers.get(i));
        }
      }
    }
    removeByPool(retryCounters, name);
    for (String key : new ArrayList<>(policyCounters.keySet())) {
      if (key.contains("\n" + name + "\n")) {
        registry.remove(policyCounters.remove(key));
      }
    }
  }

  /** Stops the bookkeeping thread; meters stay as they are. */
  public void close() {
    bookkeeping.shutdown();
  }

  private <M extends Meter> void removeByPool(Map<String, M> meters, String pool) {
    for (String key : new ArrayList<>(meters.keySet())) {
      if (key.startsWith(pool + "\n")) {
        registry.remove(meters.remove(key));
      }
    }
  }

  /**
   * The gauges that follow the routing table, read from the live table at scrape time: per pool
   * {@code replicapool_snapshot_version}, {@code replicapool_routable_members} and {@code
   * replicapool_ejected_members}, per member {@code replicapool_member_inflight}. As Micrometer
   * gauges they cost a registration and a removal per member on every push: 37 % of the data
   * plane's CPU samples while 1,000 pools of new members arrived (docs/BENCHMARKS.md, item 6).
   */
  private final class TableGauges implements MultiCollector {
    private static final String VERSION = "replicapool_snapshot_version";
    private static final String ROUTABLE = "replicapool_routable_members";
    private static final String EJECTED = "replicapool_ejected_members";
    private static final String INFLIGHT = "replicapool_member_inflight";
    private static final String PANIC = "replicapool_panic";
    private static final String QUEUE = "replicapool_queue_depth";

    @Override
    public MetricSnapshots collect() {
      GaugeSnapshot.Builder version =
          gauge(VERSION, "Version of the pool's snapshot this data plane serves");
      GaugeSnapshot.Builder routable =
          gauge(ROUTABLE, "Members of the pool that take requests now");
      GaugeSnapshot.Builder ejected =
          gauge(EJECTED, "Members of the pool ejected by this data plane now");
      GaugeSnapshot.Builder inflight = gauge(INFLIGHT, "Requests in flight on a member");
      GaugeSnapshot.Builder panic =
          gauge(PANIC, "1 while too few members are routable and the pool routes to all of them");
      GaugeSnapshot.Builder queue =
          gauge(QUEUE, "Requests waiting for a member below the pool's in-flight limit");
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
          inflight.dataPoint(
              point(e.inflight(), Labels.of("member", e.address(), "pool", p.name())));
        }
      }
      return MetricSnapshots.of(
          version.build(),
          routable.build(),
          ejected.build(),
          inflight.build(),
          panic.build(),
          queue.build());
    }

    @Override
    public List<String> getPrometheusNames() {
      return List.of(VERSION, ROUTABLE, EJECTED, INFLIGHT, PANIC, QUEUE);
    }

    private static GaugeSnapshot.Builder gauge(String name, String help) {
      return GaugeSnapshot.builder().name(name).help(help);
    }

    private static GaugeSnapshot.GaugeDataPointSnapshot point(double value, Labels labels) {
      return GaugeSnapshot.GaugeDataPointSnapshot.builder().value(value).labels(labels).build();
    }
  }
}
