package dev.replicapool.api.v1alpha1;

/** The balancing algorithms of the data plane. */
public enum RoutingPolicy {
  RoundRobin,
  Adaptive,
  ConsistentHash
}
