package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.wire.ChunkedFramer;
import dev.replicapool.dataplane.wire.RequestHead;
import io.netty.buffer.ByteBuf;

/**
 * The framing of the request body a client connection is reading: how many of the bytes read belong
 * to it (by content-length or chunks, within the body limit) and whether they end it. The bytes
 * themselves pass on unchanged. One per {@link Http1Connection}, begun for each request.
 */
final class RequestBodyFraming {
  /** The chunked framing is broken. */
  static final int MALFORMED = -1;

  /** The chunks carry more than the body limit. */
  static final int TOO_LARGE = -2;

  private final ChunkedFramer chunks = ChunkedFramer.strict();
  private final long maxBodyBytes;
  private boolean chunked;
  private long left;
  private boolean last;

  RequestBodyFraming(long maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
  }

  void begin(RequestHead head) {
    chunked = head.framing() == RequestHead.Framing.CHUNKED;
    left = head.contentLength();
    chunks.reset();
  }

  /**
   * How many bytes at the start of {@code buf} belong to the body ({@link #last} says whether they
   * end it), or {@link #MALFORMED} or {@link #TOO_LARGE}.
   */
  int take(ByteBuf buf) {
    int readable = buf.readableBytes();
    if (chunked) {
      int end = chunks.feed(buf, buf.readerIndex(), buf.writerIndex(), null);
      if (end == ChunkedFramer.MALFORMED) {
        return MALFORMED;
      }
      if (chunks.payload() > maxBodyBytes) {
        return TOO_LARGE;
      }
      last = end != ChunkedFramer.MORE;
      return last ? end - buf.readerIndex() : readable;
    }
    int take = (int) Math.min(left, readable);
    left -= take;
    last = left == 0;
    return take;
  }

  /** Whether the bytes {@link #take} counted end the body. */
  boolean last() {
    return last;
  }
}
