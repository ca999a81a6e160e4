package dev.replicapool.dataplane.forward;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2Headers;
import java.nio.charset.StandardCharsets;

/**
 * What the proxy itself answers on a client HTTP/2 stream: a short plain-text answer, or for gRPC a
 * status in trailers, which is what gRPC clients read.
 */
final class H2Answers {
  static final String UNAVAILABLE = "14";
  static final String INTERNAL = "13";
  static final String DEADLINE_EXCEEDED = "4";

  private H2Answers() {}

  /**
   * The gRPC status of the proxy's own answer {@code code}, one mapping for both ways a gRPC call
   * comes in: a timeout (504) is DEADLINE_EXCEEDED, a loop (508) INTERNAL, the rest (no member, a
   * member that failed or is full) UNAVAILABLE, which a client may retry.
   */
  static String grpcStatusOf(int code) {
    return switch (code) {
      case 504 -> DEADLINE_EXCEEDED;
      case 508 -> INTERNAL;
      default -> UNAVAILABLE;
    };
  }

  /**
   * The proxy's answer {@code code}: for gRPC its status ({@link #grpcStatusOf}) in trailers; for
   * anything else the code with the message as its body. Returns the gRPC status sent, or null.
   */
  static String local(
      ChannelHandlerContext ctx, boolean grpc, int code, String message, String pool) {
    if (grpc) {
      String status = grpcStatusOf(code);
      grpcStatus(ctx, true, status, message);
      return status;
    }
    Http2Headers h = new DefaultHttp2Headers();
    h.status(String.valueOf(code))
        .set("content-type", "text/plain; charset=utf-8")
        .set("x-replicapool-pool", pool);
    ctx.write(new DefaultHttp2HeadersFrame(h, false));
    ByteBuf body =
        ctx.alloc().buffer().writeBytes((message + "\n").getBytes(StandardCharsets.UTF_8));
    ctx.writeAndFlush(new DefaultHttp2DataFrame(body, true));
    return null;
  }

  /**
   * A gRPC status that ends the stream: trailers-only (with {@code :status} 200) when no answer
   * went out yet ({@code head}), else the trailers after the member's answer.
   */
  static void grpcStatus(ChannelHandlerContext ctx, boolean head, String status, String message) {
    Http2Headers t = new DefaultHttp2Headers();
    if (head) {
      t.status("200").set("content-type", "application/grpc");
    }
    t.set("grpc-status", status).set("grpc-message", message);
    ctx.writeAndFlush(new DefaultHttp2HeadersFrame(t, true));
  }
}
