package dev.replicapool.dataplane.forward;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;

/**
 * A member's 5xx answer to an HTTP/2 stream held back while it comes, because a retry on another
 * member may replace it: its frames as the member sent them (the proxy's own Set-Cookie already on
 * its head), up to {@link ClientOutput#HOLD_LIMIT} bytes of body. Should no other try answer, it
 * goes to the client as it came, as an HTTP/1.x exchange's held answer does; it outlives the try
 * that read it. Event loop only.
 */
final class H2HeldAnswer {
  private final int status;
  private final List<Http2StreamFrame> frames = new ArrayList<>(2);
  private int bodyBytes;
  private boolean whole;

  /** The answer's {@code head}, {@code status} its :status. */
  H2HeldAnswer(int status, Http2HeadersFrame head) {
    this.status = status;
    add(head);
  }

  int status() {
    return status;
  }

  /** Its head, as the member sent it. */
  Http2Headers head() {
    return ((Http2HeadersFrame) frames.get(0)).headers();
  }

  /** The gRPC status its last frame carries (trailers, or a trailers-only head), or null. */
  CharSequence grpcStatus() {
    return whole && frames.get(frames.size() - 1) instanceof Http2HeadersFrame h
        ? h.headers().get("grpc-status")
        : null;
  }

  /** Whether the member's stream ended with what is held. */
  boolean whole() {
    return whole;
  }

  /**
   * Keeps {@code frame} (a DATA frame's buffer moves in with it); returns false when the body went
   * past what is held, and then it is kept anyway and the answer is to be passed on at once.
   */
  boolean add(Http2StreamFrame frame) {
    frames.add(frame);
    whole = H2Frames.endsStream(frame);
    if (frame instanceof Http2DataFrame d) {
      bodyBytes += d.content().readableBytes();
    }
    return bodyBytes <= ClientOutput.HOLD_LIMIT;
  }

  /**
   * Writes every frame held to the client stream (not flushed); returns the body bytes written.
   * Called once, at the head: the answer must not have gone before.
   */
  int writeTo(ChannelHandlerContext client) {
    frames.forEach(client::write);
    frames.clear();
    return bodyBytes;
  }

  /** The answer is dropped: another try's answer went out, or the stream ended. */
  void release() {
    frames.forEach(ReferenceCountUtil::release);
    frames.clear();
  }
}
