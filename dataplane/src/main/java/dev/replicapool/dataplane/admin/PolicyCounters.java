package dev.replicapool.dataplane.admin;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The counters of what the pools' request policies did, per pool: {@code
 * replicapool_retries_total{pool,reason}}, {@code replicapool_hedges_total{pool,outcome}}, {@code
 * replicapool_retry_budget_exhausted_total{pool}} and {@code
 * replicapool_queue_total{pool,outcome}}. Counted by {@link DataPlaneMetrics} as the proxy reports;
 * a pool's counters go with the pool ({@link #removePool}).
 */
final class PolicyCounters {
  private final MeterRegistry registry;
  // Keyed by meter name, pool and tag value: one counter per series, found without a registry
  // look-up.
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();

  PolicyCounters(MeterRegistry registry) {
    this.registry = registry;
  }

  void retry(String pool, String reason) {
    count("replicapool.retries", "Requests tried again on another member", pool, "reason", reason);
  }

  void hedge(String pool, String outcome) {
    count("replicapool.hedges", "Hedged tries of requests", pool, "outcome", outcome);
  }

  void budgetExhausted(String pool) {
    count(
        "replicapool.retry.budget.exhausted",
        "Requests denied a retry or hedge because the pool's retry budget was spent",
        pool,
        null,
        null);
  }

  void queue(String pool, String outcome) {
    count(
        "replicapool.queue",
        "Requests that met every member at its in-flight limit",
        pool,
        "outcome",
        outcome);
  }

  private void count(String name, String help, String pool, String tag, String value) {
    counters
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

  /** Removes the counters of a pool that is gone. */
  void removePool(String pool) {
    for (String key : new ArrayList<>(counters.keySet())) {
      if (key.contains("\n" + pool + "\n")) {
        registry.remove(counters.remove(key));
      }
    }
  }
}
