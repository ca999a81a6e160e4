package dev.replicapool.operator.metrics;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.operator.health.Transition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Collection;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The operator's Prometheus metrics: probes, state transitions, reconcile time, members by state,
 * push convergence time, and what the pool's status says (its conditions, routable members and the
 * capacity block's minimum) so that alerts need not read the API.
 */
public final class OperatorMetrics {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Timer reconcile =
      Timer.builder("replicapool.reconcile")
          .description("Time spent reconciling one ReplicaPool")
          .publishPercentiles(0.5, 0.99)
          .register(registry);
  private final Map<String, Map<MemberState, AtomicInteger>> members = new ConcurrentHashMap<>();
  private final Map<String, PoolGauges> pools = new ConcurrentHashMap<>();

  /**
   * Buckets of {@code replicapool_push_convergence_seconds}: 1 ms (a probe, a push and an ACK on
   * one machine) to 30 s (a data plane that refused and applied a resend later); beyond that +Inf.
   */
  static final Duration[] CONVERGENCE_BUCKETS =
      Stream.of(1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000)
          .map(Duration::ofMillis)
          .toArray(Duration[]::new);

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Prometheus text format. */
  public String scrape() {
    return registry.scrape();
  }

  public void reconcileDuration(long nanos) {
    reconcile.record(nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * One snapshot version of a pool converged: {@code nanos} from the change the operator saw to the
   * ACK after which every serving data plane ran it or a later version. Tagged by pool only (never
   * by data plane: that would multiply the series by the fleet).
   */
  public void pushConvergence(String pool, long nanos) {
    Timer.builder("replicapool.push.convergence")
        .description(
            "From a member change the operator saw to every serving data plane applying the"
                + " snapshot that carries it (or a later one), once per snapshot version")
        .tag("pool", pool)
        .serviceLevelObjectives(CONVERGENCE_BUCKETS)
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Counts one probe. {@code failureCause} is null for a pass, else why it failed ("refused",
   * "timeout", "http_status", "tls_name"...), the {@code cause} label; a pass has cause "none", as
   * Prometheus wants the same labels on every series of a name.
   */
  public void probe(String pool, String failureCause) {
    Counter.builder("replicapool.probes")
        .description("Active health probes by result and, for failures, cause")
        .tag("pool", pool)
        .tag("result", failureCause == null ? "success" : "failure")
        .tag("cause", failureCause == null ? "none" : failureCause)
        .register(registry)
        .increment();
  }

  public void transition(String pool, Transition t) {
    Counter.builder("replicapool.member.transitions")
        .description("Member state changes")
        .tag("pool", pool)
        .tag("from", String.valueOf(t.from()))
        .tag("to", String.valueOf(t.to()))
        .register(registry)
        .increment();
  }

  /** Sets the members-by-state gauges of a pool from its current members. */
  public void members(String pool, Collection<? extends HasState> current) {
    Map<MemberState, AtomicInteger> gauges =
        members.computeIfAbsent(
            pool,
            p -> {
              Map<MemberState, AtomicInteger> m = new EnumMap<>(MemberState.class);
              for (MemberState s : MemberState.values()) {
                AtomicInteger value = new AtomicInteger();
                Gauge.builder("replicapool.members", value, AtomicInteger::get)
                    .description("Members by state")
                    .tag("pool", p)
                    .tag("state", s.name())
                    .register(registry);
                m.put(s, value);
              }
              return m;
            });
    Map<MemberState, Integer> counts = new EnumMap<>(MemberState.class);
    for (HasState h : current) {
      counts.merge(h.state(), 1, Integer::sum);
    }
    gauges.forEach((s, v) -> v.set(counts.getOrDefault(s, 0)));
  }

  /**
   * Sets what the pool's status says: each condition as 1 (True) or 0 ({@code
   * replicapool_pool_condition{pool,condition}}), its routable members ({@code
   * replicapool_pool_routable_members}) and, with a capacity block, the replicas it needs at peak
   * ({@code replicapool_pool_capacity_min_replicas}, absent otherwise).
   */
  public void poolStatus(
      String pool, Map<String, Boolean> conditions, int routable, Integer minReplicas) {
    PoolGauges g = pools.computeIfAbsent(pool, PoolGauges::new);
    // A condition the status no longer has (Reconciled, once reconciles succeed again) goes.
    g.conditions.keySet().stream()
        .filter(t -> !conditions.containsKey(t))
        .toList()
        .forEach(t -> registry.remove(g.conditions.remove(t).gauge()));
    conditions.forEach(
        (type, status) ->
            g.conditions
                .computeIfAbsent(
                    type,
                    t -> {
                      AtomicInteger v = new AtomicInteger();
                      Gauge gauge =
                          Gauge.builder("replicapool.pool.condition", v, AtomicInteger::get)
                              .description("The pool's status conditions: 1 True, 0 False")
                              .tag("pool", pool)
                              .tag("condition", t)
                              .register(registry);
                      return new ConditionGauge(gauge, v);
                    })
                .value()
                .set(status ? 1 : 0));
    g.routable.set(routable);
    if (minReplicas == null) {
      if (g.minReplicasGauge != null) {
        registry.remove(g.minReplicasGauge);
        g.minReplicasGauge = null;
      }
      return;
    }
    g.minReplicas.set(minReplicas);
    if (g.minReplicasGauge == null) {
      g.minReplicasGauge =
          Gauge.builder("replicapool.pool.capacity.min.replicas", g.minReplicas, AtomicInteger::get)
              .description("Replicas the pool's capacity block needs at peak (status.capacity)")
              .tag("pool", pool)
              .register(registry);
    }
  }

  private record ConditionGauge(Gauge gauge, AtomicInteger value) {}

  /** The status gauges of one pool. */
  private final class PoolGauges {
    final Map<String, ConditionGauge> conditions = new ConcurrentHashMap<>();
    final AtomicInteger routable = new AtomicInteger();
    final AtomicInteger minReplicas = new AtomicInteger();
    Gauge minReplicasGauge;

    PoolGauges(String pool) {
      Gauge.builder("replicapool.pool.routable.members", routable, AtomicInteger::get)
          .description("Members the pool's status counts as routable")
          .tag("pool", pool)
          .register(registry);
    }
  }

  /** Drops a deleted pool's series. */
  public void forget(String pool) {
    members.remove(pool);
    pools.remove(pool);
    registry.getMeters().stream()
        .filter(m -> pool.equals(m.getId().getTag("pool")))
        .toList()
        .forEach(registry::remove);
  }

  /** Anything that has a member state. */
  public interface HasState {
    MemberState state();
  }
}
