package dev.replicapool.api.v1alpha1;

/** Where a member came from. */
public enum MemberSource {
  Pod,
  Static,
  Lease
}
