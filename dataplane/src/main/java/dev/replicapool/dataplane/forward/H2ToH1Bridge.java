package dev.replicapool.dataplane.forward;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns an HTTP/2 stream (as HTTP objects) into the bytes of one HTTP/1.1 exchange for {@link
 * Http1Connection}, and its response bytes back into HTTP objects. Netty's own client codec does
 * both directions, so it also knows that the answer to a HEAD has no body.
 */
final class H2ToH1Bridge extends ChannelDuplexHandler {
  private final EmbeddedChannel codec;

  H2ToH1Bridge(HttpClientCodec codec) {
    this.codec = new EmbeddedChannel(codec);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof HttpRequest req) {
      List<String> ext = new ArrayList<>();
      for (String name : req.headers().names()) {
        if (name.regionMatches(true, 0, "x-http2-", 0, 8)) {
          ext.add(name);
        }
      }
      ext.forEach(req.headers()::remove);
    }
    if (!(msg instanceof HttpObject)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    codec.writeOutbound(msg);
    Object out;
    while ((out = codec.readOutbound()) != null) {
      ctx.fireChannelRead(out);
    }
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (!(msg instanceof ByteBuf)) {
      ctx.write(msg, promise);
      return;
    }
    codec.writeInbound(msg);
    Object in;
    while ((in = codec.readInbound()) != null) {
      ctx.write(in);
    }
    if (!promise.isVoid()) {
      promise.trySuccess();
    }
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    codec.finishAndReleaseAll();
  }
}
