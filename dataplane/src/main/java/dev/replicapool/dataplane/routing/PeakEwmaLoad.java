package dev.replicapool.dataplane.routing;

/**
 * The Adaptive policy's load: the member's {@link PeakEwma} latency times (in-flight + 1), times
 * {@code 1 / (1 - utilization)} when the member reported its utilization lately (ORCA, see {@link
 * Endpoint#utilization}). A member that slows down or piles up requests looks loaded within a few
 * requests; failures count as a large latency (see {@link PoolRouter#failure}), so failing fast
 * never looks fast. The utilization factor is how a queue's waiting time grows with its load
 * (M/M/1): a member busy with traffic this data plane does not see looks loaded before its latency
 * shows it, at 50 % twice, at 90 % ten times; it is capped at {@value #MAX_FACTOR} from 0.95 to 1.
 * Past 1 (ORCA lets a member report more than its capacity: requests wait in it) it grows with the
 * report, {@value #MAX_FACTOR} x u, so a member with a queue looks more loaded the longer its
 * queue, not the same as one just under capacity.
 *
 * <p>The in-flight count is this data plane's requests to the member, or the member's own count of
 * the requests it holds (every client's, {@link Endpoint#reportedInFlight}, fading over a second)
 * when that is more: a member kept busy by other clients holds their requests too, which this data
 * plane's count alone never sees, so it would look nearly idle beside members holding this data
 * plane's requests however high its utilization.
 */
public final class PeakEwmaLoad implements Load {
  public static final PeakEwmaLoad INSTANCE = new PeakEwmaLoad();

  private PeakEwmaLoad() {}

  static final double MAX_FACTOR = 20;

  @Override
  public double of(Endpoint e, long nowNanos) {
    double n = e.inflight();
    double held = e.reportedInFlight(nowNanos); // NaN (never more) when it does not say
    if (held > n) {
      n = held;
    }
    return e.latency.value(nowNanos) * (n + 1) * utilizationFactor(e.utilization(nowNanos));
  }

  /**
   * {@code 1 / (1 - u)} up to {@link #MAX_FACTOR}, {@code MAX_FACTOR x u} past 1; 1 for a member
   * that did not report (NaN).
   */
  static double utilizationFactor(double u) {
    if (Double.isNaN(u) || u <= 0) {
      return 1;
    }
    if (u >= 1) {
      return MAX_FACTOR * u;
    }
    return u >= 1 - 1 / MAX_FACTOR ? MAX_FACTOR : 1 / (1 - u);
  }
}
