package dev.replicapool.dataplane.admin;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.routing.PoolRouter;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** Builds the /status document from the routing table. Holds no secrets by construction. */
public final class StatusReport {
  private StatusReport() {}

  public static JsonArray pools(RoutingTable table) {
    JsonArray pools = new JsonArray();
    for (PoolRuntime p : table.sortedPools().values()) {
      pools.add(pool(p));
    }
    return pools;
  }

  private static JsonObject pool(PoolRuntime p) {
    JsonObject pool =
        new JsonObject()
            .put("name", p.name())
            .put("version", p.version())
            .put("policy", String.valueOf(p.snapshot().policy()))
            .put("hosts", new JsonArray(p.hosts()))
            .put("port", p.port())
            .put("routable", p.router().routableCount())
            .put("ejected", p.router().ejectedCount())
            .put("panic", p.router().panic());
    if (p.tls() != null) {
      pool.put(
          "tls",
          new JsonObject()
              .put("subject", p.tls().subject())
              .put("sha256Prefix", p.tls().fingerprint())
              .put("notAfter", p.tls().notAfter().toString()));
    }
    JsonArray members = new JsonArray();
    for (PoolRouter.MemberView m : p.router().view()) {
      members.add(member(m));
    }
    return pool.put("members", members);
  }

  private static JsonObject member(PoolRouter.MemberView m) {
    return new JsonObject()
        .put("address", m.address())
        .put("weight", m.weight())
        .put("effectiveWeight", m.effectiveWeight())
        .put("state", m.state())
        .put("routable", m.routable())
        .put("ejected", m.ejected())
        .put("ejectedForMillis", m.ejectedForMillis())
        .put("ejections", m.ejections())
        .put("consecutiveFailures", m.consecutiveFailures())
        .put("inflight", m.inflight())
        .put("latencyMillis", m.latencyMillis())
        .put("requests", m.requests())
        .put("failures", m.failures());
  }
}
