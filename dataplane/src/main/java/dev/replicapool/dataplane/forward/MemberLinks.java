package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.upstream.H1OverH2;
import dev.replicapool.dataplane.upstream.H1Upstream;
import dev.replicapool.dataplane.upstream.H2MemberConnections;
import dev.replicapool.dataplane.upstream.MemberConnections;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.Http2StreamChannel;

/**
 * Where an HTTP/1.x try gets its connection to a member: a kept-alive HTTP/1.1 connection of the
 * event loop (or a new one), or, for members that speak HTTP/2 only, a stream of their own on the
 * member's multiplexed connection. The same for a first try, a retry and a hedge.
 */
final class MemberLinks {
  private MemberLinks() {}

  /** Opens (or takes a kept-alive) connection to {@code e} for one try; {@code l} hears which. */
  static void open(
      Forwarding fw,
      EventLoop loop,
      PoolRuntime pool,
      Endpoint e,
      MemberConnections.ConnectListener l) {
    if (pool.http2Members()) {
      H1Upstream oneShot = H1Upstream.oneShot();
      fw.h2Connections(loop)
          .openStream(
              key(pool, e),
              e.host(),
              e.port(),
              pool.upstreamTls(),
              H1OverH2.pipeline(oneShot),
              new H2MemberConnections.StreamListener() {
                @Override
                public void opened(Http2StreamChannel stream) {
                  l.connected(oneShot);
                }

                @Override
                public void failed(Throwable cause) {
                  l.failed(cause);
                }
              });
      return;
    }
    MemberConnections conns = fw.connections(loop);
    String key = key(pool, e);
    H1Upstream c = conns.poll(key);
    if (c != null) {
      l.connected(c);
    } else {
      conns.connect(key, e.host(), e.port(), pool.upstreamTls(), l);
    }
  }

  /**
   * Connections are shared by member address, TLS ones only within their pool's TLS settings; the
   * HTTP/2 streams of {@link H2StreamForwarder} share the multiplexed connections by it too.
   */
  static String key(PoolRuntime pool, Endpoint e) {
    return pool.upstreamTls() == null ? e.address() : pool.upstreamTls().key() + e.address();
  }
}
