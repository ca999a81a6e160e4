package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.routing.Endpoint;
import io.netty.channel.Channel;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Open upgrade tunnels (WebSocket and the like), by member: counted in metrics, in flight on their
 * member while open, and closed after the drain time when their member leaves the pool or stops
 * being routable.
 */
public final class Tunnels {
  /** One tunnel: the client's connection and the member's. */
  public record Tunnel(Endpoint member, Channel client, Channel upstream) {
    void close() {
      client.close();
      upstream.close();
    }
  }

  private final Map<Tunnel, Boolean> open = new ConcurrentHashMap<>();

  /**
   * Registers the tunnel between the two connections: either one closing closes the other, and when
   * the client's closes the tunnel leaves this registry and its try leaves its member.
   */
  Tunnel opened(Endpoint member, Channel client, Channel upstream) {
    Tunnel t = new Tunnel(member, client, upstream);
    open.put(t, Boolean.TRUE);
    client
        .closeFuture()
        .addListener(
            f -> {
              upstream.close();
              open.remove(t);
              if (member != null) {
                member.release();
              }
            });
    upstream.closeFuture().addListener(f -> client.close());
    return t;
  }

  public int count() {
    return open.size();
  }

  /** Tunnels open now whose member matches. */
  public Set<Tunnel> of(Predicate<Endpoint> member) {
    Set<Tunnel> s = ConcurrentHashMap.newKeySet();
    open.keySet()
        .forEach(
            t -> {
              if (member.test(t.member())) {
                s.add(t);
              }
            });
    return s;
  }

  /** Closes the tunnels of members that match, after {@code drainMillis}. */
  public void closeAfter(Predicate<Endpoint> member, long drainMillis) {
    for (Tunnel t : of(member)) {
      t.client().eventLoop().schedule(t::close, drainMillis, TimeUnit.MILLISECONDS);
    }
  }
}
