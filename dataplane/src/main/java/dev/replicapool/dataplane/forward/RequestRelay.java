package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.upstream.H1Upstream;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * The request side of one HTTP/1.x exchange and the member connection it goes out on: the head as
 * the member gets it (kept for retries and hedges until an answer's head came), the body as the
 * client sends it (queued while the try in front has no connection yet, and kept for a retry while
 * it comes to at most {@link #KEPT_BODY_BYTES}, as an HTTP/2 stream's is), and whether that
 * connection may carry another request afterwards. Owned by {@link Http1Exchange}, which decides
 * when a connection is taken, given back or dropped; {@link ResponseRelay} pauses its reads while
 * an answer waits for the client. Event loop only.
 */
final class RequestRelay implements ClientOutput.Request, ResponseRelay.Request {
  /**
   * The most body bytes kept for a retry; a bigger request is not sent twice once some went out.
   */
  static final int KEPT_BODY_BYTES = H2RequestBody.KEPT_BYTES;

  /** The client connection, as far as its request on the way needs it. */
  interface Client {
    /** The member cannot take more: the client's reads pause. */
    void pauseReading();

    /** The member can take more again. */
    void resumeReading();
  }

  private final Client client;
  private final Tries tries;
  private final boolean bodyless;

  /**
   * A chunked body: a member that frames it otherwise (by Content-Length alone) reads its chunks as
   * further requests and answers them later, so the connection carries no other request.
   */
  private final boolean chunked;

  /** The head as the member gets it; kept until the response head came, for retries. */
  private ByteBuf head;

  /** Where the traceparent's value is in {@link #head}; -1 when the request is not traced. */
  private final int traceparentAt;

  /** Body bytes received before a member connection was there. */
  private ArrayDeque<ByteBuf> queued;

  /**
   * Every body byte received so far (its own references), while they fit in {@link
   * #KEPT_BODY_BYTES}; null when there is no body, or once it outgrew them.
   */
  private ArrayDeque<ByteBuf> keptBody;

  private int keptBytes;

  private boolean ended;
  private boolean bodyWritten;
  private H1Upstream upstream;
  private boolean closedUnprocessed;

  /** The member closes it, or sent more than the answer: never reused. */
  private boolean spent;

  RequestRelay(
      Client client,
      ByteBuf head,
      int traceparentAt,
      boolean bodyless,
      boolean chunked,
      Tries tries) {
    this.client = client;
    this.head = head;
    this.traceparentAt = traceparentAt;
    this.bodyless = bodyless;
    this.chunked = chunked;
    this.tries = tries;
    this.ended = bodyless;
    this.keptBody = bodyless ? null : new ArrayDeque<>(4);
  }

  /**
   * The try in front has its connection: the head and the body so far go out on it. After a try
   * that sent some of the body, that is the kept copy (a retry happens only while it is whole).
   */
  void connected(H1Upstream c, H1Upstream.User user, String traceparent) {
    upstream = c;
    spent = false;
    c.attach(user);
    Channel ch = c.channel();
    boolean paused = queued != null;
    ch.write(headFor(traceparent), ch.voidPromise());
    if (bodyWritten) {
      releaseQueued(); // received since the last try: already in the kept copy
      writeKeptBody(ch);
    }
    bodyWritten = !bodyless;
    if (queued != null) {
      ByteBuf b;
      while ((b = queued.poll()) != null) {
        ch.write(b, ch.voidPromise());
      }
      queued = null;
    }
    if (keptBytes > KEPT_BODY_BYTES) {
      outgrown();
    }
    if (paused) {
      client.resumeReading();
    }
    ch.flush();
  }

  /** A hedge won: its connection, already answering, is the one in front now. */
  void adopt(H1Upstream c) {
    upstream = c;
    spent = false;
  }

  /** Body bytes from the client, on their way or queued until a connection is there. */
  @Override
  public void body(ByteBuf bytes) {
    keep(bytes);
    if (upstream == null) {
      if (queued == null) {
        queued = new ArrayDeque<>();
      }
      queued.add(bytes);
      client.pauseReading(); // until the member connection is there
      return;
    }
    upstream.channel().write(bytes, upstream.channel().voidPromise());
  }

  /** The end of a read from the client: what was written goes out; a slow member pauses it. */
  void flush() {
    if (upstream != null) {
      upstream.channel().flush();
      if (!upstream.channel().isWritable()) {
        client.pauseReading();
      }
    }
  }

  @Override
  public void end() {
    ended = true;
  }

  /**
   * Keeps a copy of body bytes for a retry. Past {@link #KEPT_BODY_BYTES} the copy is let go once a
   * connection is there; without one, reading pauses after this read, so what is kept stays
   * bounded, and the try that gets the connection still gets the whole body.
   */
  private void keep(ByteBuf bytes) {
    if (keptBody == null) {
      return;
    }
    keptBytes += bytes.readableBytes();
    keptBody.add(bytes.retainedDuplicate());
    if (keptBytes > KEPT_BODY_BYTES && upstream != null) {
      outgrown();
    }
  }

  /** The body outgrew what is kept: once some of it went out, no other member gets the request. */
  private void outgrown() {
    releaseKeptBody();
    tries.bodyNotKept();
    if (head != null) {
      head.release();
      head = null;
    }
  }

  private void releaseKeptBody() {
    if (keptBody != null) {
      keptBody.forEach(ByteBuf::release);
      keptBody = null;
    }
  }

  private void releaseQueued() {
    if (queued != null) {
      queued.forEach(ByteBuf::release);
      queued = null;
    }
  }

  /** Whether the client's body is complete (or there is none). */
  @Override
  public boolean ended() {
    return ended;
  }

  /**
   * Whether the request can go to another member as it was sent: its head is kept, and its body is
   * kept whole or none of it went out.
   */
  boolean retryable() {
    return head != null && (!bodyWritten || keptBody != null);
  }

  /**
   * The whole request, as kept, goes out on {@code ch} (a hedge's connection), with the traceparent
   * of its try ({@code traceparent}: null when not traced). A hedge goes out only once the body is
   * complete and while it is kept ({@code Tries.hedgeable}).
   */
  void sendWhole(Channel ch, String traceparent) {
    ch.write(headFor(traceparent), ch.voidPromise());
    if (keptBody != null) {
      writeKeptBody(ch);
    }
    ch.flush();
  }

  /** The kept copy of the body goes out on {@code ch} (each piece its own reference). */
  private void writeKeptBody(Channel ch) {
    for (ByteBuf b : keptBody) {
      ch.write(b.retainedDuplicate(), ch.voidPromise());
    }
  }

  /** Whether the head is kept (the request can be sent again). */
  boolean headKept() {
    return head != null;
  }

  /**
   * The head a try sends: the same bytes every time, but for a traced request's traceparent, whose
   * parent-id is the try's own span ({@code traceparent}: null when not traced).
   */
  ByteBuf headFor(String traceparent) {
    if (traceparent == null || traceparentAt < 0) {
      return head.retainedDuplicate();
    }
    ByteBuf h = head.copy();
    h.setCharSequence(traceparentAt, traceparent, StandardCharsets.US_ASCII);
    return h;
  }

  /** An answer is on its way to the client: the request is not sent again. */
  void dropHead() {
    if (head != null) {
      head.release();
      head = null;
    }
    releaseKeptBody();
  }

  boolean hasConnection() {
    return upstream != null;
  }

  /** The connection must not carry another request. */
  @Override
  public void spend() {
    spent = true;
  }

  /** Reads from the member follow whether the client can take more. */
  @Override
  public void memberReads(boolean on) {
    if (upstream != null) {
      upstream.channel().config().setAutoRead(on);
    }
  }

  /** The answer is complete: the connection goes back to be kept alive, if it can. */
  void releaseConnection() {
    H1Upstream u = upstream;
    upstream = null;
    if (u == null) {
      return;
    }
    if (spent || !ended || chunked) {
      u.discard(); // a body still on its way, a member that closes, or chunks: never reused
    } else {
      u.release();
    }
  }

  /** The try is given up: its connection is closed. */
  void dropConnection() {
    H1Upstream u = upstream;
    upstream = null;
    if (u != null) {
      u.discard();
    }
  }

  /** The connection closed; false when there was none (any more). */
  boolean connectionClosed() {
    H1Upstream gone = upstream;
    upstream = null;
    closedUnprocessed = gone != null && gone.unprocessed();
    return gone != null;
  }

  /** Whether the connection that closed last said its member processed nothing of the request. */
  boolean closedUnprocessed() {
    return closedUnprocessed;
  }

  /** Hands the connection over (to a tunnel). */
  H1Upstream takeConnection() {
    H1Upstream u = upstream;
    upstream = null;
    return u;
  }

  /** The exchange finished: what it still holds of the request is let go. */
  void release() {
    dropHead();
    releaseQueued();
  }
}
