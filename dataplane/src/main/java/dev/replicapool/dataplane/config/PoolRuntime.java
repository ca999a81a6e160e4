package dev.replicapool.dataplane.config;

import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.dataplane.routing.PoolRouter;
import dev.replicapool.dataplane.tls.TlsMaterials;
import java.util.List;

/**
 * One pool as the data plane serves it: the snapshot it came from, its router, the hosts and port
 * it answers on, its TLS material (null without TLS) and its retry settings. Immutable apart from
 * the router's runtime state.
 */
public record PoolRuntime(
    PoolSnapshot snapshot,
    PoolRouter router,
    List<String> hosts,
    Integer port,
    TlsMaterials.Loaded tls,
    RetryPolicy retry) {

  public String name() {
    return snapshot.pool();
  }

  public long version() {
    return snapshot.version();
  }
}
