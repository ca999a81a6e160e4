package dev.replicapool.dataplane.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;

/**
 * Where the bytes of one HTTP/1.x answer go to the client. While the client is still sending its
 * body (and does not read meanwhile) they wait: the answer goes out once the body is complete (so a
 * body past the limit still gets its 413), at most {@code HOLD_LIMIT} of it, beyond which the
 * member is not read until then. {@link ResponseRelay} writes through it; {@link Http1Exchange}
 * tells it when the member's answer or the client's body is complete. Event loop only.
 */
final class ClientOutput {
  static final int HOLD_LIMIT = 64 * 1024;

  private final Http1Connection client;
  private final RequestRelay request;
  private CompositeByteBuf deferred;
  private boolean deferredEnd;
  private boolean wroteToClient;
  private boolean complete;

  ClientOutput(Http1Connection client, RequestRelay request) {
    this.client = client;
    this.request = request;
  }

  /** Response bytes for the client, now or once its body is complete. */
  void write(ByteBuf b) {
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

  /** Whether the member's answer is complete (what is left of the client's body is dropped). */
  boolean complete() {
    return complete;
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
}
