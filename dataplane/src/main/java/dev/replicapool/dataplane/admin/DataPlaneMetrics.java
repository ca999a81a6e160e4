package dev.replicapool.dataplane.admin;

import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.config.TableObserver;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.routing.EjectionEvents;
import dev.replicapool.dataplane.routing.Endpoint;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Prometheus metrics of the data plane (Micrometer):
 *
 * <ul>
 *   <li>{@code replicapool_requests_seconds{pool,code}}: client requests by pool and status class
 *       ({@link RequestTimers});
 *   <li>{@code replicapool_upstream_seconds{pool,member,outcome}}: each try on a member, to its
 *       response headers or failure (outcome 2xx..5xx, connect_failure, reset, timeout), and {@code
 *       replicapool_ejections_total{pool,member}} ({@link MemberMeters});
 *   <li>{@code replicapool_hedges_total{pool,outcome}} (sent, won, lost, failed, denied), {@code
 *       replicapool_retry_budget_exhausted_total{pool}} (requests denied a retry or hedge), {@code
 *       replicapool_queue_total{pool,outcome}} (queued, admitted, timeout, overflow), {@code
 *       replicapool_retries_total{pool,reason}} ({@link PolicyCounters});
 *   <li>{@code replicapool_member_inflight{pool,member}}, {@code
 *       replicapool_snapshot_version{pool}}, {@code replicapool_routable_members{pool}}, {@code
 *       replicapool_ejected_members{pool}}, {@code replicapool_queue_depth{pool}} (waiting now),
 *       {@code replicapool_member_utilization{pool,member}} (its last load report, while used),
 *       {@code replicapool_panic{pool}} (1 while the pool routes to all its members, its panic
 *       threshold crossed) (read from the table at scrape time, see {@link TableGauges});
 *   <li>{@code replicapool_control_plane_connected}, {@code replicapool_client_connections}, {@code
 *       replicapool_client_connections_refused_total}, {@code replicapool_tunnels}, {@code
 *       replicapool_client_protocol_errors_total{protocol,error}}, {@code
 *       replicapool_access_log_dropped_total} (lines the access log's full queue dropped).
 * </ul>
 *
 * This class is the proxy's {@link ProxyObserver} and a {@link TableObserver}: meters of pools and
 * members that leave the table are removed, on its bookkeeping thread.
 */
public final class DataPlaneMetrics implements ProxyObserver, TableObserver {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicInteger controlPlaneConnected = new AtomicInteger();
  private final RequestTimers requests = new RequestTimers(registry);
  private final MemberMeters members = new MemberMeters(registry);
  private final PolicyCounters policies = new PolicyCounters(registry);

  /**
   * What the function counters read. Micrometer holds a function counter's object weakly: a lambda
   * nothing else holds is collected at some GC, and its counter then stays at its last value.
   */
  private final List<LongSupplier> counted = new CopyOnWriteArrayList<>();

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

  /** {@code clock}: the forwarding's (System::nanoTime in the data plane). */
  public DataPlaneMetrics(Supplier<RoutingTable> table, LongSupplier clock) {
    Gauge.builder("replicapool.control.plane.connected", controlPlaneConnected, AtomicInteger::get)
        .description("1 while the stream to the operator is open")
        .register(registry);
    registry.getPrometheusRegistry().register(new TableGauges(table, clock));
  }

  /**
   * The client connections of the traffic ports: open now, and closed because the limit was reached
   * ({@code --max-client-connections}).
   */
  public void clientConnections(IntSupplier open, LongSupplier refused) {
    Gauge.builder("replicapool.client.connections", open::getAsInt)
        .description("client connections open on the traffic ports")
        .register(registry);
    counted.add(refused);
    FunctionCounter.builder(
            "replicapool.client.connections.refused", refused, LongSupplier::getAsLong)
        .description("client connections closed at once because --max-client-connections were open")
        .register(registry);
  }

  @Override
  public void clientProtocolError(String protocol, String error) {
    // Few tag values (the HTTP/2 error codes): Micrometer finds the counter in its map.
    Counter.builder("replicapool.client.protocol.errors")
        .description("client connections closed because the client broke the protocol")
        .tag("protocol", protocol)
        .tag("error", error)
        .register(registry)
        .increment();
  }

  @Override
  public void clientStalled(String pool, String protocol, String side) {
    Counter.builder("replicapool.client.stalled")
        .description(
            "requests cut because their client sent none of the rest (side=request) or took none of"
                + " the answer (side=answer) for the pool's idle timeout")
        .tag("pool", pool)
        .tag("protocol", protocol)
        .tag("side", side)
        .register(registry)
        .increment();
  }

  /** Access-log lines dropped because the writer's queue was full. */
  public void accessLogDropped(LongSupplier dropped) {
    counted.add(dropped);
    FunctionCounter.builder("replicapool.access.log.dropped", dropped, LongSupplier::getAsLong)
        .description("access-log lines dropped because the writer's queue was full")
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
  public EjectionEvents eventsFor(String pool) {
    return new EjectionEvents() {
      @Override
      public void ejected(Endpoint e, long millis) {
        members.ejected(pool, e);
      }
    };
  }

  @Override
  public void attempt(String pool, Endpoint member, String outcome, long nanos) {
    members.attempt(pool, member, outcome, nanos);
  }

  @Override
  public void retry(String pool, String reason) {
    policies.retry(pool, reason);
  }

  @Override
  public void hedge(String pool, String outcome) {
    policies.hedge(pool, outcome);
  }

  @Override
  public void budgetExhausted(String pool) {
    policies.budgetExhausted(pool);
  }

  @Override
  public void queue(String pool, String outcome) {
    policies.queue(pool, outcome);
  }

  @Override
  public void response(String pool, int status, long nanos) {
    requests.record(pool, status, nanos);
  }

  @Override
  public void installed(TableObserver.Change change) {
    // Only the pools this swap changed: walking every pool on every swap made applying N pools
    // O(N^2). The member maps change here (the proxy looks them up); meters that must go are
    // removed on the bookkeeping thread. Gauges are not touched at all: TableGauges reads them
    // from the table at scrape time.
    List<Map<String, Meter>> goneMembers = members.follow(change);
    List<String> gonePools = new ArrayList<>();
    for (String name : change.pools()) {
      if (change.previous().pool(name) != null && change.next().pool(name) == null) {
        gonePools.add(name);
      }
    }
    if (goneMembers.isEmpty() && gonePools.isEmpty()) {
      return;
    }
    bookkeeping.execute(
        () -> {
          goneMembers.forEach(m -> m.values().forEach(registry::remove));
          gonePools.forEach(this::removePoolMeters);
        });
  }

  /** Removes the request timers, retry and policy counters of a pool that is gone. */
  private void removePoolMeters(String name) {
    requests.removePool(name);
    policies.removePool(name);
  }

  /** Stops the bookkeeping thread; meters stay as they are. */
  public void close() {
    bookkeeping.shutdown();
  }
}
