package dev.replicapool.replica;

import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * What a sample replica has been told to do: add latency, fail a share of requests, report itself
 * unhealthy, or freeze. Shared by all event loops of one replica; every field is safe to read and
 * write from any thread.
 */
public final class ReplicaState {
  /** Largest delay or freeze accepted, so that a typo cannot park requests for days. */
  public static final long MAX_MILLIS = TimeUnit.HOURS.toMillis(1);

  private final LongSupplier nanoClock;
  private final List<Runnable> freezeListeners = new CopyOnWriteArrayList<>();
  private final List<Runnable> healthListeners = new CopyOnWriteArrayList<>();
  private final LongAdder served = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private volatile long slowMillis;
  private volatile double errorRate;
  private volatile boolean healthy = true;
  private volatile long frozenUntilNanos;
  private volatile boolean frozen;
  private volatile Capacity capacity;

  public ReplicaState() {
    this(System::nanoTime);
  }

  ReplicaState(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  public long slowMillis() {
    return slowMillis;
  }

  /** Adds this many milliseconds to every response; 0 turns it off. */
  public void slow(long millis) {
    slowMillis = checkMillis(millis);
  }

  public double errorRate() {
    return errorRate;
  }

  /** Answers this share of requests (0 to 1) with 500. */
  public void errors(double rate) {
    if (!(rate >= 0 && rate <= 1)) {
      throw new IllegalArgumentException("rate must be between 0 and 1, got " + rate);
    }
    errorRate = rate;
  }

  /** The health flag: what /healthz answers and what a registrar reports. */
  public boolean healthy() {
    return healthy;
  }

  public void healthy(boolean healthy) {
    this.healthy = healthy;
    healthListeners.forEach(Runnable::run);
  }

  /** Called (on the caller's thread) whenever the health flag is set. */
  void onHealthChange(Runnable listener) {
    healthListeners.add(listener);
  }

  /** Answers nothing (but /admin) for this many milliseconds from now; 0 ends a freeze. */
  public void freeze(long millis) {
    checkMillis(millis);
    if (millis == 0) {
      frozen = false;
    } else {
      frozenUntilNanos = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(millis);
      frozen = true;
    }
    freezeListeners.forEach(Runnable::run);
  }

  /** Milliseconds left of the current freeze, 0 when not frozen (rounded up). */
  public long frozenForMillis() {
    if (!frozen) {
      return 0;
    }
    long left = frozenUntilNanos - nanoClock.getAsLong();
    return left <= 0 ? 0 : (left + 999_999) / 1_000_000;
  }

  public boolean isFrozen() {
    return frozenForMillis() > 0;
  }

  /**
   * What a registrar reports: healthy and not frozen. A frozen process would not answer its own
   * health URL either, so an in-process registrar reports what a sidecar one would.
   */
  public boolean leaseHealthy() {
    return healthy && !isFrozen();
  }

  /** The worker pool and its load meter, or null: unlimited and no load report (the default). */
  Capacity capacity() {
    return capacity;
  }

  /** Sets (or, the first time, creates) the capacity: workers at once, each held serviceMillis. */
  public synchronized void capacity(int workers, long serviceMillis) {
    if (capacity == null) {
      capacity = new Capacity(nanoClock, workers, serviceMillis);
    } else {
      capacity.set(workers, serviceMillis);
    }
  }

  /** Back to normal: no latency, no errors, healthy, not frozen. */
  public void reset() {
    slowMillis = 0;
    errorRate = 0;
    healthy(true);
    freeze(0);
  }

  /** Called (on the caller's thread) whenever a freeze starts or ends. */
  void onFreezeChange(Runnable listener) {
    freezeListeners.add(listener);
  }

  void countServed(boolean error) {
    served.increment();
    if (error) {
      errors.increment();
    }
  }

  /** Requests answered outside /admin, and how many of those were injected errors. */
  public long served() {
    return served.sum();
  }

  public long injectedErrors() {
    return errors.sum();
  }

  /** The settings as a JSON object, as GET /admin/state shows them. */
  public String toJson(String name) {
    return String.format(
        Locale.ROOT,
        "{\"replica\":%s,\"healthy\":%s,\"slowMillis\":%d,\"errorRate\":%s,"
            + "\"frozenForMillis\":%d,\"served\":%d,\"injectedErrors\":%d}",
        Json.string(name),
        healthy,
        slowMillis,
        Double.toString(errorRate),
        frozenForMillis(),
        served(),
        injectedErrors());
  }

  private static long checkMillis(long millis) {
    if (millis < 0 || millis > MAX_MILLIS) {
      throw new IllegalArgumentException(
          "ms must be between 0 and " + MAX_MILLIS + ", got " + millis);
    }
    return millis;
  }
}
