package dev.replicapool.dataplane.routing;

import java.util.List;

/**
 * Picks one member among candidates that are all allowed to take the request. Called under the
 * pool's lock, so implementations may keep state (their own, per member) without their own
 * synchronization. Built for one snapshot of a pool by {@link BalancerFactory}.
 */
public interface Balancer {
  /**
   * @param candidates non-empty, in the pool's member order; weigh them by their effective weight
   *     (the operator's, ramped by slow start, or equal in panic), not {@link Endpoint#weight()}
   * @param nowNanos the pool clock's current time
   */
  Endpoint pick(List<Endpoint> candidates, long nowNanos);

  /**
   * The same with the request's hash key ({@link HashKey#NONE}: none). Only a hashing balancer
   * reads it; the others pick as without one.
   */
  default Endpoint pick(List<Endpoint> candidates, long key, long nowNanos) {
    return pick(candidates, nowNanos);
  }
}
