package dev.replicapool.dataplane.routing;

/**
 * The Adaptive policy's load: the member's {@link PeakEwma} latency times (in-flight + 1). A member
 * that slows down or piles up requests looks loaded within a few requests; failures count as a
 * large latency (see {@link PoolRouter#failure}), so failing fast never looks fast.
 */
public final class PeakEwmaLoad implements Load {
  public static final PeakEwmaLoad INSTANCE = new PeakEwmaLoad();

  private PeakEwmaLoad() {}

  @Override
  public double of(Endpoint e, long nowNanos) {
    return e.latency.value(nowNanos) * (e.inflight() + 1);
  }
}
