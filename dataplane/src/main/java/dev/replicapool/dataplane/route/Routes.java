package dev.replicapool.dataplane.route;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.RoutingTable;

/**
 * Which pool a request goes to, or what the proxy answers itself: the listener's dedicated pool,
 * else the pool of the Host header (or :authority); 404 when none matches, 508 when the request
 * already passed this data plane. Plain code on the routing table, no I/O.
 */
public final class Routes {
  private Routes() {}

  /** The pool, or (when {@code pool} is null) the local answer. */
  public record Route(PoolRuntime pool, int status, String message) {
    public static Route to(PoolRuntime pool) {
      return new Route(pool, 0, null);
    }
  }

  /**
   * @param dedicatedPool the pool of a dedicated port, null on the shared ports
   * @param host the Host header or :authority, null when the request has none
   * @param loopedBack whether the request carries this data plane's own Via pseudonym
   */
  public static Route find(
      RoutingTable table, String dedicatedPool, String host, boolean loopedBack, String viaName) {
    PoolRuntime pool = dedicatedPool != null ? table.pool(dedicatedPool) : table.poolForHost(host);
    if (pool == null) {
      String why =
          dedicatedPool != null
              ? "pool " + dedicatedPool + " is no longer served on this port"
              : host == null
                  ? "no pool matches a request without Host"
                  : "no pool matches host " + RoutingTable.normalizeHost(host);
      return new Route(null, 404, why);
    }
    if (loopedBack) {
      // A member address that leads back here (the proxy's own port, or a chain of data planes
      // that closes): without this each pass opens one more upstream request.
      return new Route(
          pool,
          508,
          "request loop: this request already passed this data plane (Via "
              + viaName
              + "); a member of pool "
              + pool.name()
              + " leads back to the proxy");
    }
    return Route.to(pool);
  }
}
