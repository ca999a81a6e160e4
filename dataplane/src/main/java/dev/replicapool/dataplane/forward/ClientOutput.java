package dev.replicapool.dataplane.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;

/**
 * Where the bytes of one HTTP/1.x answer go to the client. While the client is still sending its
 * body (and does not read meanwhile) they wait: the answer goes out once the body is complete (so a
 * body past the limit still gets its 413), at most {@code HOLD_LIMIT} of it, beyond which the
 * member is not read until then. What comes of the body after the member's answer is complete is
 * dropped. {@link ResponseRelay} writes through it; {@link Http1Exchange} hands it the client's
 * body and tells it when the member's answer is complete. It sees the client connection and the
 * request's relay only through {@link Client} and {@link Request}. Event loop only.
 */
final class ClientOutput {
  static final int HOLD_LIMIT = 64 * 1024;

  /** The client connection, as far as an answer's bytes need it ({@link Http1Connection}). */
  interface Client {
    ByteBufAllocator alloc();

    /** Whether the client reads answers while it sends (an HTTP/2 stream). */
    boolean fullDuplex();

    void write(ByteBuf b);

    void flush();
  }

  /** The request on its way to the member, as far as its answer needs it ({@link RequestRelay}). */
  interface Request {
    /** Whether the client's body is complete (or there is none). */
    boolean ended();

    /** The client's body is complete. */
    void end();

    /** Body bytes for the member. */
    void body(ByteBuf bytes);

    /** Reads from the member on or off. */
    void memberReads(boolean on);
  }

  /** Where the answer stands. */
  enum Answer {
    /** Nothing of it yet. */
    NONE,
    /** Some of it is kept back: the client still sends its body. */
    KEPT,
    /** It goes to the client as it comes. */
    FLOWING,
    /**
     * All of it is kept back: it goes, and the exchange ends, once the client's body is complete.
     */
    KEPT_WHOLE,
    /** It is complete and went out: what still comes of the client's body is dropped. */
    WHOLE
  }

  private final Client client;
  private final Request request;
  private Answer answer = Answer.NONE;

  /** What is kept back while the client sends; null when nothing is. */
  private CompositeByteBuf kept;

  private long written;

  ClientOutput(Client client, Request request) {
    this.client = client;
    this.request = request;
  }

  /** Response bytes for the client, now or once its body is complete. */
  void write(ByteBuf b) {
    written += b.readableBytes();
    if (request.ended() || client.fullDuplex()) {
      if (!complete()) {
        answer = Answer.FLOWING;
      }
      client.write(b);
      return;
    }
    if (kept == null) {
      kept = client.alloc().compositeBuffer(64);
    }
    kept.addComponent(true, b);
    if (answer == Answer.NONE) {
      answer = Answer.KEPT;
    }
    if (kept.readableBytes() > HOLD_LIMIT) {
      request.memberReads(false);
    }
  }

  /**
   * Body bytes from the client (framing included, as received) on their way to the member, or
   * dropped once its answer is complete or the exchange {@code finished}; {@code last} ends the
   * body. True when the body ended with dropped bytes: what was kept back goes now ({@link
   * #releaseKept}), else at the end of the read ({@link #readEnded}).
   */
  boolean clientBody(ByteBuf bytes, boolean last, boolean finished) {
    if (last) {
      request.end();
    }
    if (finished || complete()) {
      bytes.release(); // the member's answer is complete: what is left of the body is dropped
      return last;
    }
    request.body(bytes);
    return false;
  }

  /**
   * The end of a read from the client: true when its body ended in it with some of the answer kept
   * back, which goes now ({@link #releaseKept}). (A body that ended in an earlier read let it go
   * then, and nothing is kept after.)
   */
  boolean readEnded() {
    return kept != null && request.ended();
  }

  /**
   * The client's body is complete: the answer kept back meanwhile goes out. True when the answer
   * had ended meanwhile, so the exchange ends now.
   */
  boolean releaseKept() {
    boolean ends = answer == Answer.KEPT_WHOLE;
    if (kept != null) {
      ByteBuf k = kept;
      kept = null;
      client.write(k);
      client.flush();
      request.memberReads(true);
    }
    if (ends) {
      answer = Answer.WHOLE;
    } else if (answer == Answer.KEPT) {
      answer = Answer.FLOWING;
    }
    return ends;
  }

  /**
   * The member's answer is complete. False when the client still sends its body (and does not read
   * meanwhile): the exchange ends once that is complete ({@link #releaseKept}).
   */
  boolean completeNow() {
    if (!request.ended() && !client.fullDuplex()) {
      answer = Answer.KEPT_WHOLE;
      return false;
    }
    answer = Answer.WHOLE;
    return true;
  }

  /** Whether any of the answer reached the client (then the proxy cannot answer instead). */
  boolean wroteToClient() {
    return answer == Answer.FLOWING || answer == Answer.WHOLE;
  }

  Answer answer() {
    return answer;
  }

  /** The exchange finished: what was kept back goes. */
  void release() {
    if (kept != null) {
      kept.release();
      kept = null;
    }
  }

  /** Bytes of the answer handed over for the client so far. */
  long written() {
    return written;
  }

  private boolean complete() {
    return answer == Answer.KEPT_WHOLE || answer == Answer.WHOLE;
  }
}
