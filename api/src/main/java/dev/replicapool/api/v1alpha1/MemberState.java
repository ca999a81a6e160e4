package dev.replicapool.api.v1alpha1;

/** A member's health as decided by the operator's health model. */
public enum MemberState {
  /**
   * New and not yet answered its first {@code healthyThreshold} probes: counted as registered, not
   * routable.
   */
  Pending,
  Healthy,
  Degraded,
  Unhealthy,
  /** A terminating Pod: still counted, gets no new requests. */
  Draining
}
