package dev.replicapool.operator.discovery;

import dev.replicapool.api.v1alpha1.MemberSource;

/**
 * A member as discovery found it, before any probing.
 *
 * @param name Pod or Lease name; null for static members
 * @param draining a terminating Pod: counted, but gets no new requests; final
 * @param drainedBy why a user drains it ("drained by annotation replicapool.dev/drain"): counted,
 *     no new requests, until the user undrains it; null when not drained
 * @param selfReportedHealthy the health flag a Lease-registered replica renews with; null when the
 *     source has none
 * @param leaseExpiresAtMillis when the Lease expires unless renewed (epoch millis); null for other
 *     sources
 */
public record Member(
    String host,
    int port,
    MemberSource source,
    String name,
    boolean draining,
    Boolean selfReportedHealthy,
    Long leaseExpiresAtMillis,
    String drainedBy) {

  /** A member nobody drains. */
  public Member(
      String host,
      int port,
      MemberSource source,
      String name,
      boolean draining,
      Boolean selfReportedHealthy,
      Long leaseExpiresAtMillis) {
    this(host, port, source, name, draining, selfReportedHealthy, leaseExpiresAtMillis, null);
  }

  public String address() {
    return host + ":" + port;
  }
}
