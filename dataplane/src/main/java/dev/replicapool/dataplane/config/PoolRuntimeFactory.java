package dev.replicapool.dataplane.config;

import dev.replicapool.api.v1alpha1.AdaptiveRouting;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.dataplane.policy.RequestPolicy;
import dev.replicapool.dataplane.policy.RetryPolicy;
import dev.replicapool.dataplane.routing.EjectionEvents;
import dev.replicapool.dataplane.routing.HashPolicy;
import dev.replicapool.dataplane.routing.OutlierPolicy;
import dev.replicapool.dataplane.routing.PoolRouter;
import dev.replicapool.dataplane.routing.RouterSettings;
import dev.replicapool.dataplane.routing.SlowStartRamp;
import dev.replicapool.dataplane.tls.TlsMaterials;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Makes the {@link PoolRuntime} of a snapshot {@link SnapshotValidator} accepted: loads its TLS
 * material (material that does not load refuses the snapshot), builds its router with the state of
 * the pool's previous router carried over, and its retry, upstream TLS and request policies. Used
 * by {@link ConfigStore} while it stages a change.
 */
final class PoolRuntimeFactory {
  /** Decay constant of the latency average used by the Adaptive policy. */
  static final long EWMA_TAU_MILLIS = 10_000;

  /** A failure counts as this many times the pool's baseline latency. */
  static final int FAILURE_PENALTY_FACTOR = 10;

  private final Vertx vertx;
  private final LongSupplier clock;
  private final Supplier<Random> randoms;
  private final Function<String, EjectionEvents> events;
  private volatile long defaultIdleNanos = 30_000_000_000L;

  /**
   * @param clock nanosecond clock for routing decisions
   * @param randoms a Random for each new pool router
   * @param events ejection events of a pool (for metrics)
   */
  PoolRuntimeFactory(
      Vertx vertx,
      LongSupplier clock,
      Supplier<Random> randoms,
      Function<String, EjectionEvents> events) {
    this.vertx = vertx;
    this.clock = clock;
    this.randoms = randoms;
    this.events = events;
  }

  /** The idle timeout of pools that set none. */
  void defaultIdleTimeoutMillis(long millis) {
    this.defaultIdleNanos = millis * 1_000_000L;
  }

  /**
   * The pool of {@code s}.
   *
   * @param hosts its host names as {@link SnapshotValidator#check} returned them
   * @param previous the pool as the table has it, or null
   * @throws IllegalArgumentException with the NACK's reason, e.g. TLS material that does not load
   */
  PoolRuntime build(PoolSnapshot s, List<String> hosts, PoolRuntime previous) {
    TlsMaterials.Loaded tls = s.tls() == null ? null : TlsMaterials.load(vertx, s.tls());
    double baseline = baselineLatencyMillis(s);
    PoolRouter router = router(s, baseline, previous);
    String protocol = s.appProtocol() == null ? "http" : s.appProtocol();
    UpstreamTls upstreamTls =
        protocol.equals("https") || protocol.equals("kubernetes.io/wss")
            ? UpstreamTls.load(s.upstreamTls())
            : null;
    RequestPolicy requests =
        RequestPolicy.from(
            s, previous == null ? null : previous.requests(), defaultIdleNanos, baseline, clock);
    return new PoolRuntime(
        s,
        router,
        List.copyOf(hosts),
        s.port(),
        tls,
        RetryPolicy.from(s.retry()),
        upstreamTls,
        requests);
  }

  /** The adaptive baseline latency of the snapshot, else the API's default. */
  static double baselineLatencyMillis(PoolSnapshot s) {
    AdaptiveRouting adaptive = s.adaptive() != null ? s.adaptive() : new AdaptiveRouting();
    return adaptive.baselineLatencyMillis != null
        ? adaptive.baselineLatencyMillis
        : new AdaptiveRouting().baselineLatencyMillis;
  }

  /** The pool's router, carrying over the state of the previous one. */
  private PoolRouter router(PoolSnapshot s, double baseline, PoolRuntime previous) {
    RouterSettings settings =
        new RouterSettings(
            s.policy(),
            OutlierPolicy.from(s.outlierDetection()),
            EWMA_TAU_MILLIS,
            baseline,
            baseline * FAILURE_PENALTY_FACTOR,
            SlowStartRamp.from(s.slowStart()),
            s.panicThresholdPercent() == null ? 0 : s.panicThresholdPercent(),
            HashPolicy.from(s.consistentHash()));
    return PoolRouter.create(
        s.pool(),
        settings,
        s.members(),
        previous == null ? null : previous.router(),
        clock,
        randoms.get(),
        events.apply(s.pool()));
  }
}
