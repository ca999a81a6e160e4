package dev.replicapool.dataplane.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;

/**
 * Where the bytes of one HTTP/1.x answer go to the client. While the client is still sending its
 * body (and does not read meanwhile) they wait: the answer goes out once the body is complete (so a
 * body past the limit still gets its 413), at most {@code HOLD_LIMIT} of it, beyond which the
 * member is not read until then. What comes of the body after the member's answer is complete is
 * dropped. {@link ResponseRelay} writes through it; {@link Http1Exchange} hands it the client's
 * body and tells it when the member's answer is complete. Event loop only.
 */
final class ClientOutput {
  static final int HOLD_LIMIT = 64 * 1024;

  private final Http1Connection client;
  private final RequestRelay request;
  private CompositeByteBuf deferred;
  private boolean deferredEnd;
  private boolean wroteToClient;
  private boolean complete;

  /** The client's body ended in the read under way: what was kept back goes at its end. */
  private boolean bodyEndedInRead;

  private long written;

  ClientOutput(Http1Connection client, RequestRelay request) {
    this.client = client;
    this.request = request;
  }

  /** Response bytes for the client, now or once its body is complete. */
  void write(ByteBuf b) {
    written += b.readableBytes();
    if (request.ended() || client.fullDuplex()) {
      wroteToClient = true;
      client.write(b);
      return;
    }
    if (deferred == null) {
      deferred = client.alloc().compositeBuffer(64);
    }
    deferred.addComponent(true, b);
    if (deferred.readableBytes() > HOLD_LIMIT) {
      request.memberReads(false);
    }
  }

  /**
   * Body bytes from the client (framing included, as received) on their way to the member, or
   * dropped once its answer is complete or the exchange {@code finished}; {@code last} ends the
   * body. True when the body ended with dropped bytes: what was kept back goes now ({@link
   * #releaseDeferred}), else at the end of the read ({@link #readEnded}).
   */
  boolean clientBody(ByteBuf bytes, boolean last, boolean finished) {
    if (last) {
      request.end();
    }
    if (finished || complete) {
      bytes.release(); // the member's answer is complete: what is left of the body is dropped
      return last;
    }
    if (last) {
      bodyEndedInRead = true;
    }
    request.body(bytes);
    return false;
  }

  /** The end of a read from the client: true when its body ended in it; what was kept back goes. */
  boolean readEnded() {
    boolean ended = bodyEndedInRead;
    bodyEndedInRead = false;
    return ended;
  }

  /**
   * The client's body is complete: the answer kept back meanwhile goes out. True when the answer
   * had ended meanwhile, so the exchange ends now.
   */
  boolean releaseDeferred() {
    if (deferred != null) {
      ByteBuf d = deferred;
      deferred = null;
      wroteToClient = true;
      client.write(d);
      client.flush();
      request.memberReads(true);
    }
    if (deferredEnd) {
      deferredEnd = false;
      return true;
    }
    return false;
  }

  /**
   * The member's answer is complete. False when the client still sends its body (and does not read
   * meanwhile): the exchange ends once that is complete ({@link #releaseDeferred}).
   */
  boolean completeNow() {
    complete = true;
    if (!request.ended() && !client.fullDuplex()) {
      deferredEnd = true;
      return false;
    }
    return true;
  }

  /** Whether any of the answer reached the client (then the proxy cannot answer instead). */
  boolean wroteToClient() {
    return wroteToClient;
  }

  /** The exchange finished: what was kept back goes. */
  void release() {
    if (deferred != null) {
      deferred.release();
      deferred = null;
    }
  }

  /** Bytes of the answer handed over for the client so far. */
  long written() {
    return written;
  }
}
