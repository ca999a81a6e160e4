package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.exchange.TryCourse;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;

/**
 * A request's members for its {@link TryCourse}: the pool's balancer, through its {@link Tries}.
 */
record PoolMembers(PoolRuntime pool, Tries tries) implements TryCourse.Members {
  @Override
  public int routable() {
    return pool.router().routableCount();
  }

  @Override
  public Endpoint next() {
    return tries.next(pool.router());
  }
}
