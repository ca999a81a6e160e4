package dev.replicapool.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

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
}
