package dev.replicapool.dataplane.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.util.ReferenceCountUtil;

/**
 * Carries one HTTP/1.1 exchange over an HTTP/2 stream to a member that speaks only HTTP/2 (an
 * HTTP/1.1 client of an h2c pool): the request bytes the exchange writes are decoded into HTTP
 * objects and turned into frames by Netty's codec, the member's frames come back as HTTP/1.1
 * response bytes. The exchange itself does not know the difference.
 */
public final class H1OverH2 extends ChannelDuplexHandler {
  private final EmbeddedChannel codec = new EmbeddedChannel(new HttpServerCodec());
  private final H1Upstream upstream;

  private H1OverH2(H1Upstream upstream) {
    this.upstream = upstream;
  }

  /** The pipeline of such a stream, ending in {@code upstream}. */
  public static ChannelInitializer<Http2StreamChannel> pipeline(H1Upstream upstream) {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(Http2StreamChannel ch) {
        ch.pipeline()
            .addLast(new Http2StreamFrameToHttpObjectCodec(false))
            .addLast(new H1OverH2(upstream))
            .addLast(upstream);
      }
    };
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!(msg instanceof ByteBuf)) {
      ctx.write(msg, promise);
      return;
    }
    codec.writeInbound(msg); // request bytes -> HttpRequest, HttpContent ...
    Object decoded;
    while ((decoded = codec.readInbound()) != null) {
      ctx.write(decoded);
    }
    if (!promise.isVoid()) {
      promise.trySuccess();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof HttpObject)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    codec.writeOutbound(msg); // HttpResponse, HttpContent ... -> response bytes
    Object encoded;
    while ((encoded = codec.readOutbound()) != null) {
      ctx.fireChannelRead(encoded);
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    // Netty's multiplexer hands a stream its RST_STREAM as an event; a GOAWAY only to streams
    // above its last stream id. Either way the member processed nothing (RFC 9113 8.7, 6.8).
    if ((evt instanceof Http2ResetFrame r && r.errorCode() == Http2Error.REFUSED_STREAM.code())
        || evt instanceof Http2GoAwayFrame) {
      upstream.markUnprocessed();
    }
    ReferenceCountUtil.release(evt);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    codec.finishAndReleaseAll();
  }
}
