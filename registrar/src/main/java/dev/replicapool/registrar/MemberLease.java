package dev.replicapool.registrar;

import dev.replicapool.api.registration.LeaseConventions;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.regex.Pattern;

/**
 * Who a registrar registers and how its Lease looks: pure functions from the replica's identity,
 * its health flag and the current time to the Lease (for creation) and the JSON merge patch (for
 * renewal), both as JSON. No I/O, so every field is unit-tested.
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

  /**
   * The whole Lease to create when none exists, as JSON; with the drain annotation when draining.
   */
  public String creationJson(boolean healthy, boolean draining, Instant now) {
    String time = quote(microTime(now));
    return "{\"apiVersion\":\"coordination.k8s.io/v1\",\"kind\":\"Lease\",\"metadata\":{\"name\":"
        + quote(leaseName())
        + ",\"namespace\":"
        + quote(namespace)
        + ","
        + labelsAndAnnotations(healthy, draining)
        + "},\"spec\":{\"holderIdentity\":"
        + quote(replica)
        + ",\"leaseDurationSeconds\":"
        + leaseDurationSeconds()
        + ",\"acquireTime\":"
        + time
        + ",\"renewTime\":"
        + time
        + "}}";
  }

  /**
   * The JSON merge patch ({@code application/merge-patch+json}) of one renewal: renewTime, the
   * health flag, and the identity fields again so that a Lease someone edited heals itself. It
   * carries no resourceVersion, so it never conflicts with other writers and touches no field it
   * does not name (acquireTime, other labels and annotations stay as they are). {@code draining}
   * adds the drain annotation; without it the patch leaves that annotation alone, so a {@code
   * kubectl annotate} drain stays.
   */
  public String renewalPatch(boolean healthy, boolean draining, Instant now) {
    return "{\"metadata\":{"
        + labelsAndAnnotations(healthy, draining)
        + "},\"spec\":{\"holderIdentity\":"
        + quote(replica)
        + ",\"leaseDurationSeconds\":"
        + leaseDurationSeconds()
        + ",\"renewTime\":"
        + quote(microTime(now))
        + "}}";
  }

  private String labelsAndAnnotations(boolean healthy, boolean draining) {
    return "\"labels\":{"
        + quote(LeaseConventions.POOL_LABEL)
        + ":"
        + quote(pool)
        + "},\"annotations\":{"
        + quote(LeaseConventions.ADDRESS_ANNOTATION)
        + ":"
        + quote(address.toString())
        + ","
        + quote(LeaseConventions.HEALTHY_ANNOTATION)
        + ":"
        + quote(Boolean.toString(healthy))
        + (draining ? "," + quote(LeaseConventions.DRAIN_ANNOTATION) + ":\"true\"" : "")
        + "}";
  }

  /**
   * A JSON string. Written out rather than with a JSON library: a registrar's start-up is its first
   * write, and loading one costs a replica a tenth of a second before it is a member.
   */
  static String quote(String value) {
    StringBuilder out = new StringBuilder(value.length() + 2).append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
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
