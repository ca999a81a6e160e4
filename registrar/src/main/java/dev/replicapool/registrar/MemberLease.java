package dev.replicapool.registrar;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.replicapool.api.registration.LeaseConventions;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.regex.Pattern;

/**
 * Who a registrar registers and how its Lease looks: pure functions from the replica's identity,
 * its health flag and the current time to the Lease object (for creation) and the JSON merge patch
 * (for renewal). No I/O, so every field is unit-tested.
 *
 * <p>The Lease follows {@link LeaseConventions}: named {@code <pool>-<replica>}, labelled with the
 * pool, annotated with the address and the health flag, held by the replica, with {@code
 * leaseDurationSeconds} the lease rounded up to whole seconds (the operator judges expiry by the
 * pool's millisecond setting, not by this field).
 */
public record MemberLease(
    String namespace, String pool, String replica, HostPort address, long leaseDurationMillis) {

  private static final Pattern LABEL_VALUE =
      Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSX").withZone(ZoneOffset.UTC);
  private static final ObjectMapper JSON = new ObjectMapper();

  public MemberLease {
    requireNonBlank(namespace, "namespace");
    requireNonBlank(pool, "pool");
    requireNonBlank(replica, "replica name");
    if (address == null) {
      throw new IllegalArgumentException("address must be given");
    }
    if (!LABEL_VALUE.matcher(pool).matches()) {
      throw new IllegalArgumentException(
          "pool name '" + pool + "' cannot be a label value (at most 63 letters, digits, -_.)");
    }
    if (leaseDurationMillis < 1) {
      throw new IllegalArgumentException(
          "lease duration must be at least 1 ms, got " + leaseDurationMillis);
    }
    String name = LeaseConventions.leaseName(pool, replica);
    if (!DNS_SUBDOMAIN.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "pool '"
              + pool
              + "' and replica '"
              + replica
              + "' give the Lease name '"
              + name
              + "', which is not a valid object name (it must start and end with a letter or"
              + " digit)");
    }
  }

  public MemberLease(
      String namespace, String pool, String replica, String address, long leaseDurationMillis) {
    this(namespace, pool, replica, HostPort.parse(address), leaseDurationMillis);
  }

  /** The Lease's name, {@link LeaseConventions#leaseName}. */
  public String leaseName() {
    return LeaseConventions.leaseName(pool, replica);
  }

  /** {@code ceil(leaseDurationMillis / 1000)}, at least 1. */
  public int leaseDurationSeconds() {
    long seconds = (leaseDurationMillis + 999) / 1000;
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, seconds));
  }

  /** The full Lease to create when none exists. */
  public Lease toLease(boolean healthy, Instant now) {
    return toLease(healthy, false, now);
  }

  /** As {@link #toLease(boolean, Instant)}, with the drain annotation when {@code draining}. */
  public Lease toLease(boolean healthy, boolean draining, Instant now) {
    Lease lease = toLeaseWithoutDrain(healthy, now);
    if (draining) {
      lease.getMetadata().getAnnotations().put(LeaseConventions.DRAIN_ANNOTATION, "true");
    }
    return lease;
  }

  private Lease toLeaseWithoutDrain(boolean healthy, Instant now) {
    ZonedDateTime time = now.truncatedTo(ChronoUnit.MICROS).atZone(ZoneOffset.UTC);
    return new LeaseBuilder()
        .withNewMetadata()
        .withName(leaseName())
        .withNamespace(namespace)
        .addToLabels(LeaseConventions.POOL_LABEL, pool)
        .addToAnnotations(LeaseConventions.ADDRESS_ANNOTATION, address.toString())
        .addToAnnotations(LeaseConventions.HEALTHY_ANNOTATION, Boolean.toString(healthy))
        .endMetadata()
        .withNewSpec()
        .withHolderIdentity(replica)
        .withLeaseDurationSeconds(leaseDurationSeconds())
        .withAcquireTime(time)
        .withRenewTime(time)
        .endSpec()
        .build();
  }

  /**
   * The JSON merge patch ({@code application/merge-patch+json}) of one renewal: renewTime, the
   * health flag, and the identity fields again so that a Lease someone edited heals itself. It
   * carries no resourceVersion, so it never conflicts with other writers and touches no field it
   * does not name (acquireTime, other labels and annotations stay as they are).
   */
  public String renewalPatch(boolean healthy, Instant now) {
    return renewalPatch(healthy, false, now);
  }

  /**
   * As {@link #renewalPatch(boolean, Instant)}; {@code draining} adds the drain annotation. Without
   * it the patch leaves that annotation alone, so a {@code kubectl annotate} drain stays.
   */
  public String renewalPatch(boolean healthy, boolean draining, Instant now) {
    ObjectNode patch = JSON.createObjectNode();
    ObjectNode metadata = patch.putObject("metadata");
    metadata.putObject("labels").put(LeaseConventions.POOL_LABEL, pool);
    ObjectNode annotations =
        metadata
            .putObject("annotations")
            .put(LeaseConventions.ADDRESS_ANNOTATION, address.toString())
            .put(LeaseConventions.HEALTHY_ANNOTATION, Boolean.toString(healthy));
    if (draining) {
      annotations.put(LeaseConventions.DRAIN_ANNOTATION, "true");
    }
    patch
        .putObject("spec")
        .put("holderIdentity", replica)
        .put("leaseDurationSeconds", leaseDurationSeconds())
        .put("renewTime", microTime(now));
    return patch.toString();
  }

  /** Kubernetes MicroTime: RFC 3339 in UTC with exactly six fractional digits. */
  public static String microTime(Instant instant) {
    return MICRO_TIME.format(instant);
  }

  private static void requireNonBlank(String value, String what) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
  }
}
