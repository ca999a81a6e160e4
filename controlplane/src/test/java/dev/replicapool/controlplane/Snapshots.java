package dev.replicapool.controlplane;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import java.util.List;

final class Snapshots {
  private Snapshots() {}

  static PoolSnapshot pool(String pool, long version, double... weights) {
    List<MemberSnapshot> members =
        java.util.stream.IntStream.range(0, weights.length)
            .mapToObj(
                i ->
                    new MemberSnapshot("127.0.0." + (i + 1), 8080, weights[i], MemberState.Healthy))
            .toList();
    return PoolSnapshotBuilder.builder()
        .pool(pool)
        .version(version)
        .policy(RoutingPolicy.RoundRobin)
        .hosts(List.of(pool.replace('/', '.') + ".example"))
        .members(members)
        .build();
  }
}
