package dev.replicapool.dataplane.routing;

import dev.replicapool.api.v1alpha1.RoutingPolicy;
import io.soabase.recordbuilder.core.RecordBuilder;
import java.util.Objects;

/**
 * How a {@link PoolRouter} routes: its balancer policy, outlier detection, the latency model of its
 * members, slow start, panic routing and the consistent-hash key. Made from a pool's snapshot
 * ({@code config/PoolRuntimeFactory}); {@link RouterSettingsBuilder} where only some fields matter.
 *
 * @param policy the balancer ({@link BalancerFactory})
 * @param outlier passive ejection ({@link OutlierDetector})
 * @param ewmaTauMillis decay constant of the latency average (about 10 s)
 * @param defaultLatencyMillis latency assumed for a member without samples yet
 * @param failurePenaltyMillis latency a failure counts as, so that members failing fast are not
 *     mistaken for fast members
 * @param slowStart ramp of members that join a pool with routable members (null: off)
 * @param panicThresholdPercent below this share of registered members routable, route to all of
 *     them (0: off); see {@link Candidates}
 * @param hash the key source and table of the ConsistentHash policy (null: none, unkeyed)
 */
@RecordBuilder
public record RouterSettings(
    RoutingPolicy policy,
    OutlierPolicy outlier,
    long ewmaTauMillis,
    double defaultLatencyMillis,
    double failurePenaltyMillis,
    SlowStartRamp slowStart,
    int panicThresholdPercent,
    HashPolicy hash) {
  public RouterSettings {
    Objects.requireNonNull(policy, "policy");
    Objects.requireNonNull(outlier, "outlier");
    slowStart = slowStart == null ? SlowStartRamp.OFF : slowStart;
    if (panicThresholdPercent < 0 || panicThresholdPercent > 100) {
      throw new IllegalArgumentException("panicThresholdPercent must be within 0..100");
    }
  }
}
