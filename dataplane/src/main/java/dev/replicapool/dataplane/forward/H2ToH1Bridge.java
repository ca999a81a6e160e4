package dev.replicapool.dataplane.forward;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns an HTTP/2 stream (as HTTP objects) into the bytes of one HTTP/1.1 exchange for {@link
 * Http1Connection}, and its response bytes back into HTTP objects. Netty's own client codec does
 * both directions, so it also knows that the answer to a HEAD has no body.
 *
 * <p>A gRPC call reads its outcome from {@code grpc-status}, which the proxy's HTTP/1.1 answers do
 * not carry: for a gRPC call, the proxy's own answer becomes a trailers-only answer with the status
 * {@link H2Answers} gives on the HTTP/2 path (a passed deadline DEADLINE_EXCEEDED, a loop INTERNAL,
 * the rest UNAVAILABLE), and an answer that breaks off ends with UNAVAILABLE trailers, where a
 * reset would read as CANCELLED.
 */
final class H2ToH1Bridge extends ChannelDuplexHandler {
  private final EmbeddedChannel codec;

  /** The stream's request is a gRPC call. */
  private boolean grpc;

  private Answer answer = Answer.NONE;

  /** The proxy's own answer to a gRPC call, while its body is read for the grpc-message. */
  private int localStatus;

  private final StringBuilder localMessage = new StringBuilder();

  /** What went back to the client so far. */
  private enum Answer {
    NONE,
    /** The proxy's own answer, being turned into trailers. */
    LOCAL,
    STARTED,
    ENDED
  }

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
      String type = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
      grpc = type != null && type.regionMatches(true, 0, "application/grpc", 0, 16);
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
      if (grpc) {
        grpcAnswer(ctx, in);
      } else {
        ctx.write(in);
      }
    }
    if (!promise.isVoid()) {
      promise.trySuccess();
    }
  }

  private void grpcAnswer(ChannelHandlerContext ctx, Object in) {
    if (in instanceof HttpResponse r && answer == Answer.NONE) {
      if (r.headers().contains("x-replicapool-pool") && r.status().code() != 200) {
        answer = Answer.LOCAL;
        localStatus = r.status().code();
      } else if (r.status().code() >= 200) {
        answer = Answer.STARTED;
      }
    }
    if (answer == Answer.LOCAL) {
      if (in instanceof HttpContent c) {
        localMessage.append(c.content().toString(StandardCharsets.UTF_8));
      }
      boolean last = in instanceof LastHttpContent;
      ReferenceCountUtil.release(in);
      if (last) {
        answer = Answer.ENDED;
        String status = H2Answers.grpcStatusOf(localStatus);
        FullHttpResponse t =
            new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        t.headers()
            .set(HttpHeaderNames.CONTENT_TYPE, "application/grpc")
            .set("grpc-status", status)
            .set("grpc-message", localMessage.toString().strip());
        ctx.write(t);
      }
      return;
    }
    if (in instanceof LastHttpContent && answer == Answer.STARTED) {
      answer = Answer.ENDED;
    }
    ctx.write(in);
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    if (grpc && answer == Answer.STARTED) {
      // The answer broke off: trailers tell the client UNAVAILABLE, as on the HTTP/2 path.
      answer = Answer.ENDED;
      LastHttpContent t = new DefaultLastHttpContent();
      t.trailingHeaders()
          .set("grpc-status", H2Answers.UNAVAILABLE)
          .set("grpc-message", "the member's answer broke off");
      ctx.writeAndFlush(t);
    }
    ctx.close(promise);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    codec.finishAndReleaseAll();
  }
}
