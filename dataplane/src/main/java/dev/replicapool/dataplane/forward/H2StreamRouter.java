package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.route.Routes;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * The first handler of each client HTTP/2 stream: at its first HEADERS frame it decides how the
 * stream is carried. To a pool whose members speak HTTP/2 the stream's frames are forwarded as
 * frames onto a multiplexed member connection ({@link H2StreamForwarder}: gRPC, trailers, flow
 * control end to end); to an HTTP/1.1 pool the stream is turned into an HTTP/1.1 exchange and
 * handled by the same {@link Http1Connection} as any HTTP/1.1 request, so that every rule of that
 * path (limits, retries, local answers) holds for both.
 *
 * <p>The decision waits for the end of the read that opened the stream: a stream the client resets
 * in that same read (rapid reset, CVE-2023-44487: HEADERS and RST_STREAM back to back, thousands to
 * a read) reaches no member and costs no member connection; a connection that goes on doing it is
 * closed ({@link H2ControlFrameBudget#prematureResets}). Netty's count of every reset (200 in 30 s)
 * is off, since it closed the connections of gRPC clients whose deadlines cancel most of their
 * calls.
 */
final class H2StreamRouter extends ChannelInboundHandlerAdapter {
  private final Forwarding fw;
  private final String dedicatedPool;
  private final boolean tls;

  /** The stream's frames so far, held until the read that brought them ends. */
  private List<Object> held;

  H2StreamRouter(Forwarding fw, String dedicatedPool, boolean tls) {
    this.fw = fw;
    this.dedicatedPool = dedicatedPool;
    this.tls = tls;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (held != null) {
      held.add(msg); // a DATA frame read with the HEADERS
      return;
    }
    if (!(msg instanceof Http2HeadersFrame headers)) {
      ReferenceCountUtil.release(msg);
      ctx.close();
      return;
    }
    if (!wellFormedRequest(headers.headers())) {
      ReferenceCountUtil.release(msg);
      ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.PROTOCOL_ERROR));
      return;
    }
    held = new ArrayList<>(2);
    held.add(headers);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    List<Object> frames = held;
    held = null;
    if (frames == null) {
      ctx.fireChannelReadComplete();
      return;
    }
    if (!ctx.channel().isActive()) {
      frames.forEach(ReferenceCountUtil::release); // reset in the read that opened it
      return;
    }
    ChannelPipeline p = ctx.pipeline();
    carry(ctx, (Http2HeadersFrame) frames.get(0));
    frames.forEach(p::fireChannelRead);
    p.fireChannelReadComplete();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    List<Object> frames = held;
    held = null;
    if (frames != null) {
      frames.forEach(ReferenceCountUtil::release); // reset in the read that opened it
    }
    ctx.fireChannelInactive();
  }

  /** Puts the handlers that carry the stream in place of this one. */
  private void carry(ChannelHandlerContext ctx, Http2HeadersFrame headers) {
    PoolRuntime pool = pool(headers.headers());
    ChannelPipeline p = ctx.pipeline();
    boolean grpc = H2RequestHeaders.grpc(headers.headers());
    // HTTP/2 to the members when they speak only that, or for gRPC to TLS members (h2 by ALPN);
    // everything else goes to TLS members as HTTP/1.1, which every HTTPS server speaks.
    if (pool != null && (pool.http2Members() || (pool.tlsMembers() && grpc))) {
      p.replace(this, "forward", new H2StreamForwarder(fw, pool, tls));
    } else {
      p.addAfter(ctx.name(), "h2-to-h1", new Http2StreamFrameToHttpObjectCodec(true, true));
      p.addAfter("h2-to-h1", "bridge", new H2ToH1Bridge(new HttpClientCodec()));
      p.addAfter(
          "bridge",
          "http1",
          new Http1Connection(fw, new Http1Setup(dedicatedPool, tls, false, null, true)));
      p.remove(this);
    }
  }

  /** The pool the stream's :authority (or Host) routes to, or null. */
  private PoolRuntime pool(Http2Headers h) {
    CharSequence authority = h.authority();
    if (authority == null) {
      authority = h.get("host");
    }
    Routes.Route r =
        Routes.find(
            fw.table.get(),
            dedicatedPool,
            authority == null ? null : authority.toString(),
            false,
            fw.viaName);
    return r.pool();
  }

  /** RFC 9113 8.3.1: :method, :scheme and :path, each once (CONNECT aside). */
  private static boolean wellFormedRequest(Http2Headers h) {
    if (h.method() == null) {
      return false;
    }
    if (h.method().toString().equals("CONNECT")) {
      return h.authority() != null;
    }
    return h.scheme() != null && h.path() != null && h.path().length() > 0;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close(); // a stream error: the codec resets the stream
  }
}
