package dev.replicapool.replica;

import java.util.ArrayDeque;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A replica's capacity: at most {@code workers} requests hold a worker at once, the rest wait in an
 * unbounded FIFO queue. It measures its busy share of worker time over a sliding window (sum of
 * worker-busy time / (workers x window)) and the answers per second, for the ORCA {@code
 * endpoint-load-metrics} header. Callers never block: {@link #acquire} runs the grant now or later,
 * from {@link #release}. Thread-safe (one capacity is shared by every event loop).
 *
 * <p>A batch job inside the replica (a noisy neighbour, {@link #batchJob}) can hold some workers:
 * it takes free ones at once and the next ones freed before any queued request, and its workers
 * count in the load the replica reports, as a real neighbour's CPU would.
 */
final class Capacity {
  static final long WINDOW_NANOS = 1_000_000_000L;
  private static final int BUCKETS = 10;
  private static final long BUCKET_NANOS = WINDOW_NANOS / BUCKETS;

  private final LongSupplier nanoClock;
  private final long startNanos;
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
  private final long[] busyNanos = new long[BUCKETS];
  private final long[] done = new long[BUCKETS];
  private final long[] epochs = new long[BUCKETS];
  private int workers;
  private long serviceMillis;
  private int busy;
  private long lastNanos;
  private int jobWants;
  private int jobHolds;

  /** Whether answers carry the load report (off: the load is there, the member says nothing). */
  private volatile boolean reports = true;

  Capacity(LongSupplier nanoClock, int workers, long serviceMillis) {
    this.nanoClock = nanoClock;
    this.startNanos = nanoClock.getAsLong();
    this.lastNanos = startNanos;
    java.util.Arrays.fill(epochs, -1);
    set(workers, serviceMillis);
  }

  /** Sets both; a raise in workers grants waiting requests at once (runs them on this thread). */
  void set(int workers, long serviceMillis) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be at least 1, got " + workers);
    }
    if (serviceMillis < 0 || serviceMillis > ReplicaState.MAX_MILLIS) {
      throw new IllegalArgumentException(
          "serviceMs must be between 0 and " + ReplicaState.MAX_MILLIS + ", got " + serviceMillis);
    }
    synchronized (this) {
      if (jobWants >= workers) {
        throw new IllegalArgumentException(
            "workers must stay above the batch job's " + jobWants + ", got " + workers);
      }
      advance();
      this.workers = workers;
      this.serviceMillis = serviceMillis;
      topUpJob();
    }
    grantWaiting();
  }

  /**
   * A batch job holds {@code n} workers from now on (0: none): free ones at once, busy ones as they
   * free up, before queued requests. At least one worker stays for requests.
   */
  void batchJob(int n) {
    synchronized (this) {
      if (n < 0 || n >= workers) {
        throw new IllegalArgumentException(
            "busy workers must be 0 to " + (workers - 1) + " (fewer than workers), got " + n);
      }
      advance();
      jobWants = n;
      int give = Math.max(0, jobHolds - n);
      jobHolds -= give;
      busy -= give;
      topUpJob();
    }
    grantWaiting();
  }

  synchronized int batchJob() {
    return jobWants;
  }

  /** Gives the batch job the free workers it still wants; under the lock, after advance(). */
  private void topUpJob() {
    int take = Math.max(0, Math.min(jobWants - jobHolds, workers - busy));
    jobHolds += take;
    busy += take;
  }

  private void grantWaiting() {
    Runnable next;
    while ((next = grantOne()) != null) {
      next.run();
    }
  }

  boolean reports() {
    return reports;
  }

  void reports(boolean on) {
    reports = on;
  }

  /**
   * HAProxy's agent-check answer: the idle share of the workers as a percentage of the configured
   * weight ("75%\n"), at least 1 % so that HAProxy keeps the server in rotation.
   */
  String agentReply() {
    long idle = Math.round(100 * (1 - Math.min(1.0, demand())));
    return Math.max(1, idle) + "%\n";
  }

  synchronized int workers() {
    return workers;
  }

  synchronized long serviceMillis() {
    return serviceMillis;
  }

  synchronized int queued() {
    return waiting.size();
  }

  /** Runs {@code granted} once a worker is free: now, or later from {@link #release}. */
  void acquire(Runnable granted) {
    synchronized (this) {
      if (busy >= workers) {
        waiting.add(granted);
        return;
      }
      advance();
      busy++;
    }
    granted.run();
  }

  /** Frees a worker (one answer done) and runs the next waiting request, if any. */
  void release() {
    synchronized (this) {
      advance();
      busy--;
      done[bucket(lastNanos)]++;
      topUpJob();
    }
    Runnable next = grantOne();
    if (next != null) {
      next.run();
    }
  }

  private synchronized Runnable grantOne() {
    if (busy >= workers || waiting.isEmpty()) {
      return null;
    }
    advance();
    busy++;
    return waiting.poll();
  }

  /** Busy share of worker time over the last window (0 to 1 while workers are unchanged). */
  synchronized double utilization() {
    advance();
    long span = span();
    if (span <= 0) {
      return 0;
    }
    return (double) sum(busyNanos) / ((double) workers * span);
  }

  /**
   * What is asked of the workers now, as a share of them: the busy share over the window, or more
   * while requests wait ((busy + queued) / workers, above 1 with a queue). The windowed share alone
   * cannot exceed 1 and trails a queue by up to a window; this shows the queue as it forms. ORCA
   * lets {@code application_utilization} exceed 1 past the reporter's own limit.
   */
  synchronized double demand() {
    return demandGiven(utilization());
  }

  private double demandGiven(double utilization) {
    return Math.max(utilization, (double) (busy + waiting.size()) / workers);
  }

  /** Answers per second over the last window. */
  synchronized double rps() {
    advance();
    long span = span();
    return span <= 0 ? 0 : sum(done) * 1e9 / span;
  }

  /**
   * The {@code endpoint-load-metrics} value, in ORCA's TEXT form: {@link #demand} as the
   * application's utilization (what balancers weigh), the windowed busy share as the CPU's, and the
   * requests held now (in service and waiting, every client's) as {@code named_metrics.in_flight}.
   */
  String orcaText() {
    double d;
    double u;
    double r;
    int inFlight;
    synchronized (this) {
      u = utilization();
      d = demandGiven(u); // the same window: utilization() once
      r = rps();
      inFlight = busy + waiting.size();
    }
    return String.format(
        Locale.ROOT,
        "TEXT application_utilization=%.4f, cpu_utilization=%.4f, rps_fractional=%.1f,"
            + " named_metrics.in_flight=%d",
        d,
        u,
        r,
        inFlight);
  }

  private long span() {
    long epoch = (lastNanos - startNanos) / BUCKET_NANOS;
    long windowStart = Math.max(0, (epoch - BUCKETS + 1) * BUCKET_NANOS);
    return lastNanos - startNanos - windowStart;
  }

  private long sum(long[] values) {
    long epoch = (lastNanos - startNanos) / BUCKET_NANOS;
    long total = 0;
    for (int i = 0; i < BUCKETS; i++) {
      if (epochs[i] > epoch - BUCKETS) {
        total += values[i];
      }
    }
    return total;
  }

  /** Adds busy x elapsed since the last change to the buckets it spans. */
  private void advance() {
    long now = Math.max(nanoClock.getAsLong(), lastNanos);
    while (lastNanos < now) {
      long bucketEnd = ((lastNanos - startNanos) / BUCKET_NANOS + 1) * BUCKET_NANOS + startNanos;
      long until = Math.min(now, bucketEnd);
      busyNanos[bucket(lastNanos)] += busy * (until - lastNanos);
      lastNanos = until;
    }
    bucket(now);
  }

  /** The index of the bucket holding {@code nanos}, cleared if it held an older epoch. */
  private int bucket(long nanos) {
    long epoch = (nanos - startNanos) / BUCKET_NANOS;
    int i = (int) (epoch % BUCKETS);
    if (epochs[i] != epoch) {
      epochs[i] = epoch;
      busyNanos[i] = 0;
      done[i] = 0;
    }
    return i;
  }
}
