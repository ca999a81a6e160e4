package dev.replicapool.api.registration;

/**
 * How a replica registers itself in a pool: it creates and renews a {@code coordination.k8s.io/v1}
 * Lease in the pool's namespace that carries these labels and annotations. The operator removes a
 * member when no renewal was seen for the pool's registration.leaseDurationMillis, or when its
 * Lease is deleted (the registrar's --drain-ms does so after draining), and deletes Leases that
 * stayed expired.
 *
 * <p>Expiry is judged by when the operator saw the last renewal, not by the Lease's renewTime, so
 * clock skew between a replica and the operator does not matter.
 */
public final class LeaseConventions {
  /** Label with the pool's name; the operator watches Leases that have it. */
  public static final String POOL_LABEL = "replicapool.dev/pool";

  /** Annotation with the member's address, host:port, where it takes traffic and probes. */
  public static final String ADDRESS_ANNOTATION = "replicapool.dev/address";

  /** Annotation "true" or "false": the replica's own health, refreshed with every renewal. */
  public static final String HEALTHY_ANNOTATION = "replicapool.dev/healthy";

  /**
   * Annotation "true" on a member's Pod or Lease: the member is drained (no new requests, those in
   * flight finish) until the annotation is removed or set to anything else.
   */
  public static final String DRAIN_ANNOTATION = "replicapool.dev/drain";

  /** Lease name for a replica: {@code <pool>-<replica>}, lower-cased to a DNS label form. */
  public static String leaseName(String pool, String replica) {
    String name = (pool + "-" + replica).toLowerCase().replaceAll("[^a-z0-9.-]", "-");
    return name.length() > 253 ? name.substring(0, 253) : name;
  }

  private LeaseConventions() {}
}
