package dev.replicapool.api.v1alpha1;

/** A member's health as decided by the operator's health model. */
public enum MemberState {
  Healthy,
  Degraded,
  Unhealthy,
  /** A terminating Pod: still counted, gets no new requests. */
  Draining
}
