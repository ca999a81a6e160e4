package dev.replicapool.dataplane.forward;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;

/**
 * The HTTP/2 side of a client connection (h2 by ALPN on TLS ports, h2c with prior knowledge on
 * plain ones): Netty's frame codec and multiplexer, so framing, flow control and most of the
 * protocol's rules are Netty's; {@link H2StreamStateGuard} adds the stream-state rules Netty does
 * not apply. Each stream gets {@link H2StreamErrors}, then an {@link H2StreamRouter} that routes it
 * by its first HEADERS frame; {@link H2ConnectionErrors}, last, takes the connection's errors.
 */
public final class Http2Server {
  /**
   * The streams a client may have open on one connection (HAProxy's default, nginx's is 128): each
   * stream to an HTTP/1.1 pool takes a member connection of its own, so this bounds what one client
   * connection can make the members hold.
   */
  static final int MAX_CONCURRENT_STREAMS = 100;

  private Http2Server() {}

  /** Sets up HTTP/2 on a connection whose TLS handshake chose h2. */
  public static void install(ChannelPipeline p, Forwarding fw, String dedicatedPool, boolean tls) {
    long maxHeaderList = Math.max(fw.settings.maxHeaderSize(), 1024);
    // Each stream's answer flushes the connection; these flushes come while a member's connection
    // is read, not this one, so without this each would be a write of its own.
    p.addLast(
        "flushes",
        new FlushConsolidationHandler(
            FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true));
    p.addLast(
        "h2",
        H2ServerCodec.builder()
            .initialSettings(
                Http2Settings.defaultSettings()
                    .maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
                    .maxHeaderListSize(maxHeaderList))
            .validateHeaders(true)
            .build());
    p.addLast(
        "h2-streams",
        new Http2MultiplexHandler(
            new ChannelInitializer<Http2StreamChannel>() {
              @Override
              protected void initChannel(Http2StreamChannel ch) {
                ch.pipeline().addLast("stream-errors", H2StreamErrors.INSTANCE);
                ch.pipeline().addLast("route", new H2StreamRouter(fw, dedicatedPool, tls));
              }
            }));
    int idle = fw.settings.clientIdleTimeoutSeconds();
    if (idle > 0) {
      p.addLast("idle", new IdleStateHandler(0, 0, idle));
      p.addLast(
          "idle-close",
          new ChannelInboundHandlerAdapter() {
            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
              if (evt instanceof IdleStateEvent) {
                ctx.close();
              } else {
                ctx.fireUserEventTriggered(evt);
              }
            }
          });
    }
    p.addLast("h2-errors", fw.h2Errors); // last: the client's connection errors end here
  }

  /** An HTTP/1.x-looking connection opened with the HTTP/2 preface (h2c, prior knowledge). */
  public static void switchFromHttp1(
      ChannelHandlerContext http1, Forwarding fw, String dedicatedPool, ByteBuf received) {
    ChannelPipeline p = http1.pipeline();
    install(p, fw, dedicatedPool, false);
    p.remove(http1.handler());
    p.fireChannelRead(received);
    p.fireChannelReadComplete();
  }
}
