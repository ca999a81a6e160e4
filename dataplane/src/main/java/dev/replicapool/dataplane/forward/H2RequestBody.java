package dev.replicapool.dataplane.forward;

import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The frames after a client stream's headers (DATA, trailers) and what each try of it still has to
 * send. A retry must send the request byte for byte, so the frames are also kept, while they come
 * to at most {@link #KEPT_BYTES}: past that the body is not kept and a try that may have sent some
 * of it cannot be followed by another ({@link #restart} says so), whatever the request.
 */
final class H2RequestBody {
  /** The most body bytes kept for a replay; a bigger request is never sent twice. */
  static final int KEPT_BYTES = 64 * 1024;

  private final ArrayDeque<Http2StreamFrame> kept = new ArrayDeque<>();
  private final ArrayDeque<Http2StreamFrame> pending = new ArrayDeque<>();
  private long bytes;
  private boolean whole = true;
  private boolean written;

  /**
   * A frame of the client's (owned from now on); returns false the first time the body outgrows
   * what is kept.
   */
  boolean add(Http2StreamFrame f) {
    pending.add(f);
    if (!whole) {
      return true;
    }
    if (f instanceof Http2DataFrame d) {
      bytes += d.content().readableBytes() + d.padding();
    }
    if (bytes > KEPT_BYTES) {
      whole = false;
      releaseAll(kept);
      return false;
    }
    kept.add(duplicate(f));
    return true;
  }

  /** The next frame the current try has to send, null when none; the caller writes it. */
  Http2StreamFrame poll() {
    Http2StreamFrame f = pending.poll();
    if (f != null) {
      written = true;
    }
    return f;
  }

  boolean nothingPending() {
    return pending.isEmpty();
  }

  /**
   * A new try: returns whether it can get the whole request (nothing of it was sent yet, or every
   * frame was kept); if so, its frames are pending again.
   */
  boolean restart() {
    if (!written) {
      return true;
    }
    if (!whole) {
      return false;
    }
    releaseAll(pending);
    for (Http2StreamFrame f : kept) {
      pending.add(duplicate(f));
    }
    written = false;
    return true;
  }

  /**
   * The whole request's frames again, for a hedge sent beside the current try: only when the
   * request ended and its body was kept whole (the stream's tries say so: `Tries.hedgeable`).
   */
  List<Http2StreamFrame> copy() {
    ArrayList<Http2StreamFrame> frames = new ArrayList<>(kept.size());
    for (Http2StreamFrame f : kept) {
      frames.add(duplicate(f));
    }
    written = true;
    return frames;
  }

  /** Whether another try could get the whole request: nothing was sent yet, or all is kept. */
  boolean replayable() {
    return !written || whole;
  }

  /** The current try is gone for good (a hedge answered instead): what it had left is dropped. */
  void dropPending() {
    releaseAll(pending);
  }

  void release() {
    releaseAll(pending);
    releaseAll(kept);
  }

  private static void releaseAll(ArrayDeque<Http2StreamFrame> frames) {
    Http2StreamFrame f;
    while ((f = frames.poll()) != null) {
      ReferenceCountUtil.release(f);
    }
  }

  /** Another frame with the same bytes (its own reference), to be written or kept. */
  private static Http2StreamFrame duplicate(Http2StreamFrame f) {
    if (f instanceof Http2DataFrame d) {
      return new DefaultHttp2DataFrame(
          d.content().retainedDuplicate(), d.isEndStream(), d.padding());
    }
    Http2HeadersFrame h = (Http2HeadersFrame) f;
    return new DefaultHttp2HeadersFrame(h.headers(), h.isEndStream());
  }
}
