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
 */
public final class LeaseTracker {
  /** The longest watch delivery delay believed: a renewTime older than this when seen is skew. */
  public static final long TRUSTED_DELAY_MILLIS = 100;

  private record Seen(String renewTime, long seenAtMillis) {}

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
          if (old != null && Objects.equals(old.renewTime(), renewTime)) {
            return old;
          }
          long renewed = renewTimeMillis(lease, now);
          long at;
          if (old == null) {
            at = Math.min(now, renewed);
          } else if (renewed <= now && now - renewed <= TRUSTED_DELAY_MILLIS) {
            at = renewed;
          } else {
            at = now;
          }
          return new Seen(renewTime, at);
        });
  }

  public void forget(Lease lease) {
    seen.remove(key(lease));
  }

  /** When the last renewal was observed (epoch millis); observes the Lease if it is new. */
  public long lastRenewalMillis(Lease lease) {
    Seen s = seen.get(key(lease));
    if (s == null || !Objects.equals(s.renewTime(), renewTime(lease))) {
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
