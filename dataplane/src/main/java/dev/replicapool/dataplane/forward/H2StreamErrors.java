package dev.replicapool.dataplane.forward;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Exception;

/**
 * The first handler of each client HTTP/2 stream. A stream error that Netty's codec found in the
 * client's frames (DATA after END_STREAM, a malformed trailer, a content-length that the DATA does
 * not match, a stream window overflow ...) ends here: the multiplexer then resets the stream with
 * that error's code. A handler further on that closed the stream itself would reset it with CANCEL
 * instead; they all learn of the end from channelInactive.
 */
@ChannelHandler.Sharable
final class H2StreamErrors extends ChannelInboundHandlerAdapter {
  static final H2StreamErrors INSTANCE = new H2StreamErrors();

  private H2StreamErrors() {}

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (!(Http2CodecUtil.getEmbeddedHttp2Exception(cause)
        instanceof Http2Exception.StreamException)) {
      ctx.fireExceptionCaught(cause);
    }
  }
}
