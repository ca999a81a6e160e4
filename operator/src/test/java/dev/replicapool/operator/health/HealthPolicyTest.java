package dev.replicapool.operator.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.replicapool.api.v1alpha1.AdaptiveRouting;
import dev.replicapool.api.v1alpha1.HealthCheck;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Routing;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import org.junit.jupiter.api.Test;

class HealthPolicyTest {

  @Test
  void defaultsFollowTheSpecDefaults() {
    HealthPolicy p = HealthPolicy.defaults();
    assertThat(p.routingPolicy()).isEqualTo(RoutingPolicy.RoundRobin);
    assertThat(p.activeChecks()).isTrue();
    assertThat(p.path()).isEqualTo("/healthz");
    assertThat(p.intervalMillis()).isEqualTo(1000);
    assertThat(p.timeoutMillis()).isEqualTo(500);
    assertThat(p.unhealthyThreshold()).isEqualTo(3);
    assertThat(p.healthyThreshold()).isEqualTo(1);
    assertThat(p.baselineLatencyMillis()).isEqualTo(100);
    assertThat(p.degradedLatencyFactor()).isEqualTo(2.0);
    assertThat(p.degradedLatencyLimitMillis()).isEqualTo(200.0);
    assertThat(p.errorRateThreshold()).isEqualTo(0.05);
    assertThat(p.minWeight()).isEqualTo(0.1);
    assertThat(p.recoverAfterMillis()).isEqualTo(30_000);
    assertThat(p.slowStartMillis()).isEqualTo(10_000);
    assertThat(p.weighted()).isFalse();
  }

  @Test
  void adaptivePolicyEjectsAfterItsOwnFailureCount() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.routing.policy = RoutingPolicy.Adaptive;
    spec.routing.adaptive.ejectAfterFailures = 7;
    spec.healthCheck.unhealthyThreshold = 2;
    HealthPolicy p = HealthPolicy.from(spec);
    assertThat(p.unhealthyThreshold()).isEqualTo(7);
    assertThat(p.weighted()).isTrue();

    spec.routing.policy = RoutingPolicy.RoundRobin;
    assertThat(HealthPolicy.from(spec).unhealthyThreshold()).isEqualTo(2);
  }

  @Test
  void nullsEverywhereMeanDefaults() {
    assertThat(HealthPolicy.from(null)).isEqualTo(HealthPolicy.defaults());

    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.healthCheck = null;
    spec.routing = null;
    assertThat(HealthPolicy.from(spec)).isEqualTo(HealthPolicy.defaults());

    spec.routing = new Routing();
    spec.routing.policy = null;
    spec.routing.adaptive = null;
    spec.healthCheck = new HealthCheck();
    spec.healthCheck.enabled = null;
    spec.healthCheck.path = null;
    spec.healthCheck.intervalMillis = null;
    spec.healthCheck.timeoutMillis = null;
    spec.healthCheck.unhealthyThreshold = null;
    spec.healthCheck.healthyThreshold = null;
    assertThat(HealthPolicy.from(spec)).isEqualTo(HealthPolicy.defaults());

    spec.routing.adaptive = new AdaptiveRouting();
    spec.routing.adaptive.baselineLatencyMillis = null;
    spec.routing.adaptive.degradedLatencyFactor = null;
    spec.routing.adaptive.errorRateThreshold = null;
    spec.routing.adaptive.minWeight = null;
    spec.routing.adaptive.recoverAfterMillis = null;
    spec.routing.adaptive.ejectAfterFailures = null;
    assertThat(HealthPolicy.from(spec)).isEqualTo(HealthPolicy.defaults());
  }

  /**
   * The probe timeout has no schema default (it would contradict a short interval): unset, it is
   * min(500, interval / 2), so that {@code healthCheck: {intervalMillis: 200}} alone is valid, and
   * it stays 500 for the default interval and every longer one, as in pools stored with 500 filled
   * in.
   */
  @Test
  void anUnsetTimeoutFollowsTheInterval() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    assertThat(spec.healthCheck.timeoutMillis).isNull();
    spec.healthCheck.intervalMillis = 200;
    assertThat(HealthPolicy.from(spec).timeoutMillis()).isEqualTo(100);
    spec.healthCheck.intervalMillis = 50;
    assertThat(HealthPolicy.from(spec).timeoutMillis()).isEqualTo(25);
    spec.healthCheck.intervalMillis = 1000;
    assertThat(HealthPolicy.from(spec).timeoutMillis()).isEqualTo(500);
    spec.healthCheck.intervalMillis = 60_000;
    assertThat(HealthPolicy.from(spec).timeoutMillis()).isEqualTo(500);
    spec.healthCheck.intervalMillis = null;
    assertThat(HealthPolicy.from(spec).timeoutMillis()).isEqualTo(500);

    spec.healthCheck.intervalMillis = 200;
    spec.healthCheck.timeoutMillis = 150;
    assertThat(HealthPolicy.from(spec).timeoutMillis()).isEqualTo(150);
    assertThat(HealthPolicy.from(spec).startupGraceMillis()).isEqualTo(2000);
  }

  /** S1's health check (docs/SCENARIOS.md): every 200 ms, one failure marks a member down. */
  @Test
  void seedHealthCheckDetectsInOneInterval() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.healthCheck.intervalMillis = 200;
    spec.healthCheck.timeoutMillis = 100;
    spec.healthCheck.unhealthyThreshold = 1;
    HealthPolicy p = HealthPolicy.from(spec);
    assertThat(p.detectionMillis()).isEqualTo(200);
  }

  @Test
  void slowStartFollowsAShortHoldAndIsCappedAtTenSeconds() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.routing.adaptive.recoverAfterMillis = 2_000;
    assertThat(HealthPolicy.from(spec).slowStartMillis()).isEqualTo(2_000);
    spec.routing.adaptive.recoverAfterMillis = 0;
    assertThat(HealthPolicy.from(spec).slowStartMillis()).isZero();
    spec.routing.adaptive.recoverAfterMillis = 600_000;
    assertThat(HealthPolicy.from(spec).slowStartMillis()).isEqualTo(10_000);
  }

  @Test
  void rejectsNonsense() {
    HealthPolicy p = HealthPolicy.defaults();
    assertThatThrownBy(() -> p.withThresholds(0, 1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> p.withIntervalMillis(0, 10))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> p.withRecovery(-1, 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
