package dev.replicapool.dataplane.admin;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * {@code replicapool_requests_seconds{pool,code}}: client requests by pool and status class ({@code
 * 2xx} for 200..299). Recorded by {@link DataPlaneMetrics} on every response; a pool's timers go
 * with the pool ({@link #removePool}).
 */
final class RequestTimers {
  private final MeterRegistry registry;
  // Per pool, by status class (status / 100): looked up on every response without building a key.
  // The array is shared by the event loops: AtomicReferenceArray publishes a registered timer
  // safely to the others, where a plain array would not.
  private final Map<String, AtomicReferenceArray<Timer>> byPool = new ConcurrentHashMap<>();

  RequestTimers(MeterRegistry registry) {
    this.registry = registry;
  }

  /** One response of {@code pool} with {@code status}, {@code nanos} after the request came. */
  void record(String pool, int status, long nanos) {
    int cls = statusClass(status);
    AtomicReferenceArray<Timer> timers =
        byPool.computeIfAbsent(pool, k -> new AtomicReferenceArray<>(10));
    Timer t = timers.get(cls);
    if (t == null) {
      // Racing event loops both register: Micrometer hands both the same timer.
      t =
          Timer.builder("replicapool.requests")
              .description("Client requests by pool and status class")
              .tags("pool", pool, "code", cls + "xx")
              .serviceLevelObjectives(LatencyBuckets.BOUNDS)
              .register(registry);
      timers.set(cls, t);
    }
    t.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** The status class, 0..9, that picks a timer: the hundreds digit, in the array's ten slots. */
  static int statusClass(int status) {
    return Math.floorMod(status / 100, 10);
  }

  /** Removes the timers of a pool that is gone. */
  void removePool(String pool) {
    AtomicReferenceArray<Timer> timers = byPool.remove(pool);
    if (timers != null) {
      for (int i = 0; i < timers.length(); i++) {
        if (timers.get(i) != null) {
          registry.remove(timers.get(i));
        }
      }
    }
  }
}
