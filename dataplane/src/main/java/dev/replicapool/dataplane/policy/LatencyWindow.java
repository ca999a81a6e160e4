package dev.replicapool.dataplane.policy;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * A pool's recent times to the answer's head, as a histogram with buckets 10 % apart from 10 µs to
 * about 2 minutes, over the current and the previous ten-second window (so a percentile always
 * covers 10 to 20 seconds). The hedging delay of a pool that names a percentile comes from here.
 * Recording is lock-free: the event loops of one data plane share one window.
 */
public final class LatencyWindow {
  static final int BUCKETS = 172;
  private static final double MIN_NANOS = 10_000;
  private static final double STEP = Math.log(1.1);
  private static final long WINDOW_NANOS = 10_000_000_000L;
  private static final long CACHE_NANOS = 250_000_000L;

  private final LongSupplier clock;
  private final AtomicLongArray[] windows = {
    new AtomicLongArray(BUCKETS), new AtomicLongArray(BUCKETS)
  };
  private volatile long windowIndex;
  private volatile long cachedAt = Long.MIN_VALUE;
  private volatile double cachedPercentile = Double.NaN;
  private volatile long cachedNanos;

  public LatencyWindow(LongSupplier clock) {
    this.clock = clock;
    this.windowIndex = Math.floorDiv(clock.getAsLong(), WINDOW_NANOS);
  }

  /** One try's time to its answer's head. */
  public void record(long nanos) {
    current().incrementAndGet(bucket(nanos));
  }

  /**
   * The given percentile (50..99.9) of the recorded times in nanoseconds, or {@code fallback} when
   * fewer than {@code minSamples} were recorded. Recomputed at most every 250 ms.
   */
  public long percentile(double p, int minSamples, long fallback) {
    long now = clock.getAsLong();
    if (now - cachedAt < CACHE_NANOS && cachedPercentile == p) {
      return cachedNanos;
    }
    current();
    long[] counts = new long[BUCKETS];
    long total = 0;
    for (AtomicLongArray w : windows) {
      for (int i = 0; i < BUCKETS; i++) {
        long c = w.get(i);
        counts[i] += c;
        total += c;
      }
    }
    long result = fallback;
    if (total >= minSamples && total > 0) {
      long rank = (long) Math.ceil(total * p / 100.0);
      long seen = 0;
      for (int i = 0; i < BUCKETS; i++) {
        seen += counts[i];
        if (seen >= rank) {
          result = upperBound(i);
          break;
        }
      }
    }
    cachedNanos = result;
    cachedPercentile = p;
    cachedAt = now;
    return result;
  }

  /** The window being recorded into; rolls over (clearing the older one) every ten seconds. */
  private AtomicLongArray current() {
    long idx = Math.floorDiv(clock.getAsLong(), WINDOW_NANOS);
    long known = windowIndex;
    if (idx != known) {
      synchronized (this) {
        if (windowIndex != idx) {
          AtomicLongArray next = windows[(int) Math.floorMod(idx, 2L)];
          AtomicLongArray other = windows[(int) Math.floorMod(idx + 1, 2L)];
          clear(next);
          if (idx - windowIndex > 1) {
            clear(other); // silent for more than a window: nothing recent is left
          }
          windowIndex = idx;
        }
      }
    }
    return windows[(int) Math.floorMod(idx, 2L)];
  }

  private static void clear(AtomicLongArray a) {
    for (int i = 0; i < BUCKETS; i++) {
      a.set(i, 0);
    }
  }

  static int bucket(long nanos) {
    if (nanos <= MIN_NANOS) {
      return 0;
    }
    int b = (int) Math.ceil(Math.log(nanos / MIN_NANOS) / STEP);
    return Math.min(b, BUCKETS - 1);
  }

  /** The largest time bucket {@code i} holds. */
  static long upperBound(int i) {
    return (long) Math.ceil(MIN_NANOS * Math.exp(i * STEP));
  }
}
