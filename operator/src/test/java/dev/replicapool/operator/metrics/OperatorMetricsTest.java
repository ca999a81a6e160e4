package dev.replicapool.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class OperatorMetricsTest {
  final OperatorMetrics metrics = new OperatorMetrics();

  @Test
  void pushConvergenceIsAPrometheusHistogramPerPoolFromOneMillisecondToThirtySeconds() {
    metrics.pushConvergence("ns/a", 3_000_000); // 3 ms
    metrics.pushConvergence("ns/a", 40_000_000_000L); // 40 s: only in +Inf
    String text = metrics.scrape();
    assertThat(text)
        .contains("# TYPE replicapool_push_convergence_seconds histogram")
        .contains("replicapool_push_convergence_seconds_bucket{pool=\"ns/a\",le=\"0.001\"} 0")
        .contains("replicapool_push_convergence_seconds_bucket{pool=\"ns/a\",le=\"0.002\"} 0")
        .contains("replicapool_push_convergence_seconds_bucket{pool=\"ns/a\",le=\"0.005\"} 1")
        .contains("replicapool_push_convergence_seconds_bucket{pool=\"ns/a\",le=\"30.0\"} 1")
        .contains("replicapool_push_convergence_seconds_bucket{pool=\"ns/a\",le=\"+Inf\"} 2")
        .contains("replicapool_push_convergence_seconds_count{pool=\"ns/a\"} 2");
    assertThat(
            text.lines().filter(l -> l.startsWith("replicapool_push_convergence_seconds_bucket")))
        .hasSize(OperatorMetrics.CONVERGENCE_BUCKETS.length + 1);
  }

  @Test
  void aDeletedPoolLosesItsConvergenceSeries() {
    metrics.pushConvergence("ns/a", 3_000_000);
    metrics.forget("ns/a");
    assertThat(metrics.scrape()).doesNotContain("pool=\"ns/a\"");
  }

  @Test
  void thePoolsStatusIsGaugesForAlerts() {
    metrics.poolStatus("ns/a", Map.of("Ready", true, "Reconciled", false), 3, 2);
    assertThat(metrics.scrape())
        .contains("replicapool_pool_condition{condition=\"Ready\",pool=\"ns/a\"} 1.0")
        .contains("replicapool_pool_condition{condition=\"Reconciled\",pool=\"ns/a\"} 0.0")
        .contains("replicapool_pool_routable_members{pool=\"ns/a\"} 3.0")
        .contains("replicapool_pool_capacity_min_replicas{pool=\"ns/a\"} 2.0");

    // Ready goes False, Reconciled leaves the status, the capacity block is taken out.
    metrics.poolStatus("ns/a", Map.of("Ready", false), 1, null);
    assertThat(metrics.scrape())
        .contains("replicapool_pool_condition{condition=\"Ready\",pool=\"ns/a\"} 0.0")
        .doesNotContain("Reconciled")
        .contains("replicapool_pool_routable_members{pool=\"ns/a\"} 1.0")
        .doesNotContain("replicapool_pool_capacity_min_replicas");

    metrics.forget("ns/a");
    assertThat(metrics.scrape()).doesNotContain("pool=\"ns/a\"");
  }
}
