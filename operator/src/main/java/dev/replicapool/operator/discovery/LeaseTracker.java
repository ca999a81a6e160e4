package dev.replicapool.operator.discovery;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Remembers when the operator saw each Lease renewed. Expiry is judged by the operator's own clock
 * so that a replica's clock skew cannot keep a dead member alive or kill a live one: a renewal
 * counts from the moment it was observed. On first sight (operator start) the Lease's own renewTime
 * is trusted, capped at now, so a Lease abandoned long ago is not revived.
 */
public final class LeaseTracker {
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
          long at = old == null ? Math.min(now, renewTimeMillis(lease, now)) : now;
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
