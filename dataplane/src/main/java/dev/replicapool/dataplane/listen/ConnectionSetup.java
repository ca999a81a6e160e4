package dev.replicapool.dataplane.listen;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.forward.Forwarding;
import dev.replicapool.dataplane.forward.Http1Connection;
import dev.replicapool.dataplane.forward.Http1Setup;
import dev.replicapool.dataplane.forward.Http2Server;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.Mapping;
import java.util.function.Supplier;

/**
 * The pipeline of a new client connection: the connection limit first, then TLS where the port has
 * it (the certificate of the pool its server name routes to, read from the live table at each
 * handshake, so new certificates apply to the next connection without rebinding), then HTTP/1.x or
 * HTTP/2 (by ALPN on TLS, by the prior-knowledge preface on plain ports with h2c on).
 */
final class ConnectionSetup extends ChannelInitializer<Channel> {
  private final Forwarding fw;
  private final ClientGate gate;
  private final Supplier<RoutingTable> table;
  private final String dedicatedPool;
  private final boolean tls;
  private final boolean h2c;
  private final Listener listener;

  ConnectionSetup(
      Forwarding fw,
      ClientGate gate,
      Supplier<RoutingTable> table,
      String dedicatedPool,
      boolean tls,
      boolean h2c,
      Listener listener) {
    this.fw = fw;
    this.gate = gate;
    this.table = table;
    this.dedicatedPool = dedicatedPool;
    this.tls = tls;
    this.h2c = h2c;
    this.listener = listener;
  }

  @Override
  protected void initChannel(Channel ch) {
    if (!gate.admit(ch)) {
      return;
    }
    listener.connections.add(ch);
    ChannelPipeline p = ch.pipeline();
    if (!tls) {
      p.addLast("http1", http1(false, h2c));
      return;
    }
    if (dedicatedPool != null) {
      PoolRuntime pool = table.get().pool(dedicatedPool);
      if (pool == null || pool.tls() == null) {
        ch.close();
        return;
      }
      p.addLast("tls", pool.tls().serverContext().newHandler(ch.alloc()));
    } else {
      p.addLast("tls", new SniHandler((Mapping<String, SslContext>) this::contextFor));
    }
    p.addLast(
        "alpn",
        new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1) {
          @Override
          protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
            if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
              Http2Server.install(ctx.pipeline(), fw, dedicatedPool, true);
            } else {
              ctx.pipeline().addLast("http1", http1(true, false));
            }
          }

          @Override
          protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a client that cannot agree on TLS: nothing to answer, nothing to log
          }
        });
  }

  private Http1Connection http1(boolean isTls, boolean preface) {
    return new Http1Connection(
        fw,
        new Http1Setup(
            dedicatedPool,
            isTls,
            preface,
            (ctx, received) -> Http2Server.switchFromHttp1(ctx, fw, dedicatedPool, received),
            false));
  }

  /** The certificate for a server name: its pool's, else the first TLS pool's (no SNI, unknown). */
  private SslContext contextFor(String serverName) {
    RoutingTable t = table.get();
    PoolRuntime p = serverName == null ? null : t.poolForHost(serverName);
    if (p != null && p.tls() != null) {
      return p.tls().serverContext();
    }
    for (PoolRuntime q : t.sortedPools().values()) {
      if (q.tls() != null && !q.hosts().isEmpty()) {
        return q.tls().serverContext();
      }
    }
    throw new IllegalStateException("no pool has TLS");
  }
}
