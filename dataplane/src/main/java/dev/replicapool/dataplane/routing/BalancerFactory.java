package dev.replicapool.dataplane.routing;

import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import java.util.List;
import java.util.Random;

/**
 * Builds the balancer of a pool's snapshot; one per {@link RoutingPolicy}, chosen by {@link
 * #of(RoutingPolicy, Random)}. A balancer that keeps per-member state takes over the state of the
 * members that stay from the balancer of the pool's earlier snapshot.
 */
@FunctionalInterface
public interface BalancerFactory {
  /**
   * @param members the pool's members, in snapshot order
   * @param snapshot the same members as the snapshot lists them (members carried over from the
   *     previous snapshot get this weight and state only once the router is activated)
   * @param previous the balancer of the pool's earlier snapshot, of any policy, or null
   */
  Balancer create(List<Endpoint> members, List<MemberSnapshot> snapshot, Balancer previous);

  /**
   * The factory of a policy; {@code random} for the policies that draw, {@code hash} for
   * ConsistentHash (null: no key source, every request balanced unkeyed).
   */
  static BalancerFactory of(RoutingPolicy policy, Random random, HashPolicy hash) {
    return switch (policy) {
      case RoundRobin ->
          (members, snapshot, previous) ->
              new SmoothWeightedRoundRobin(
                  previous instanceof SmoothWeightedRoundRobin s ? s : null, members);
      case Adaptive -> (members, snapshot, previous) -> new PowerOfTwoChoices(random);
      case ConsistentHash ->
          (members, snapshot, previous) ->
              ConsistentHashBalancer.create(
                  hash != null ? hash : HashPolicy.from(null), members, snapshot, previous);
    };
  }
}
