package dev.replicapool.operator.discovery;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Remembers when each Lease was last renewed, on the operator's own clock, so that a replica's
 * clock skew cannot keep a dead member alive or kill a live one.
 *
 * <p>A renewal counts from its own {@code renewTime} when that lies at most {@link
 * #TRUSTED_DELAY_MILLIS} before the moment the operator saw it (the watch's delivery delay, with
 * clocks in step); otherwise, from the moment it was seen. Counting from the observation alone made
 * every expiry late by the watch delay (the p50 of "expiry to removal" was +19 ms); a skewed clock
 * can still only move an expiry earlier by at most that bound, which the lease's slack of two
 * missed renewals absorbs. On first sight (operator start) the Lease's own renewTime is trusted,
 * capped at now, so a Lease abandoned long ago is not revived.
 *
 * <p>A fresh read of a Lease ({@link #confirmFresh}, when {@link LeaseExpiry} cannot trust the
 * watch) either confirms that its renewal is still the last one, or brings a renewal the watch
 * missed; the informer cache still holds the older one until the watch catches up, and that older
 * renewal is not taken for a new one.
 */
public final class LeaseTracker {
  /** The longest watch delivery delay believed: a renewTime older than this when seen is skew. */
  public static final long TRUSTED_DELAY_MILLIS = 100;

  /**
   * @param silenceConfirmedAtMillis when a fresh read showed this renewal still the last one
   * @param supersededRenewTime the renewal a fresh read replaced, still in the informer cache
   */
  private record Seen(
      String renewTime,
      long seenAtMillis,
      long silenceConfirmedAtMillis,
      String supersededRenewTime) {
    Seen silentAt(long atMillis) {
      return new Seen(
          renewTime,
          seenAtMillis,
          Math.max(silenceConfirmedAtMillis, atMillis),
          supersededRenewTime);
    }

    boolean isOf(String renewTime) {
      return Objects.equals(this.renewTime, renewTime)
          || (supersededRenewTime != null && supersededRenewTime.equals(renewTime));
    }
  }

  private final Map<String, Seen> seen = new ConcurrentHashMap<>();
  private final LongSupplier clock;

  public LeaseTracker(LongSupplier clock) {
    this.clock = clock;
  }

  /** Records an add or update of a Lease as the informer delivered it. */
  public void observe(Lease lease) {
    String key = key(lease);
    String renewTime = renewTime(lease);
    long now = clock.getAsLong();
    seen.compute(
        key,
        (k, old) -> {
          if (old != null && old.isOf(renewTime)) {
            return old;
          }
          return new Seen(renewTime, seenAt(old, lease, now), Long.MIN_VALUE, null);
        });
  }

  private static long seenAt(Seen old, Lease lease, long now) {
    long renewed = renewTimeMillis(lease, now);
    if (old == null) {
      return Math.min(now, renewed);
    }
    if (renewed <= now && now - renewed <= TRUSTED_DELAY_MILLIS) {
      return renewed;
    }
    return now;
  }

  /**
   * Records a fresh read of a Lease from the API server, sent at {@code readSentAtMillis} or later.
   * The same renewal as the one tracked: nobody renewed it up to then. A newer one: a renewal the
   * watch has not delivered yet, counted as if the watch had just delivered it.
   *
   * @param cached the Lease as the informer cache holds it
   * @param fresh the Lease as read; null when it is gone
   */
  public void confirmFresh(Lease cached, Lease fresh, long readSentAtMillis) {
    lastRenewalMillis(cached);
    String freshRenewTime = fresh == null ? null : renewTime(fresh);
    long now = clock.getAsLong();
    seen.computeIfPresent(
        key(cached),
        (k, old) -> {
          if (fresh == null || Objects.equals(old.renewTime(), freshRenewTime)) {
            return old.silentAt(readSentAtMillis);
          }
          if (old.isOf(freshRenewTime)) {
            return old;
          }
          return new Seen(freshRenewTime, seenAt(old, fresh, now), Long.MIN_VALUE, old.renewTime());
        });
  }

  /** Records that the Lease's current renewal was, at {@code atMillis}, known to be its last. */
  void confirmSilence(Lease lease, long atMillis) {
    lastRenewalMillis(lease);
    seen.computeIfPresent(key(lease), (k, old) -> old.silentAt(atMillis));
  }

  /**
   * When the Lease's current renewal was last known to be its last (a fresh read, or an expiry
   * established on the watch); else MIN_VALUE.
   */
  public long silenceConfirmedAtMillis(Lease lease) {
    lastRenewalMillis(lease);
    Seen s = seen.get(key(lease));
    return s == null ? Long.MIN_VALUE : s.silenceConfirmedAtMillis();
  }

  public void forget(Lease lease) {
    seen.remove(key(lease));
  }

  /** When the last renewal was observed (epoch millis); observes the Lease if it is new. */
  public long lastRenewalMillis(Lease lease) {
    Seen s = seen.get(key(lease));
    if (s == null || !s.isOf(renewTime(lease))) {
      observe(lease);
      s = seen.get(key(lease));
    }
    return s.seenAtMillis();
  }

  private static String key(Lease lease) {
    return lease.getMetadata().getNamespace() + "/" + lease.getMetadata().getName();
  }

  private static String renewTime(Lease lease) {
    return lease.getSpec() == null || lease.getSpec().getRenewTime() == null
        ? null
        : lease.getSpec().getRenewTime().toString();
  }

  private static long renewTimeMillis(Lease lease, long fallback) {
    if (lease.getSpec() == null || lease.getSpec().getRenewTime() == null) {
      return fallback;
    }
    ZonedDateTime t = lease.getSpec().getRenewTime();
    return t.toInstant().toEpochMilli();
  }
}
