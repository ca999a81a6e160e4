package dev.replicapool.dataplane.forward;

import dev.replicapool.controlplane.load.LoadReport;
import dev.replicapool.dataplane.wire.ChunkedFramer;
import dev.replicapool.dataplane.wire.HeadScanner;
import dev.replicapool.dataplane.wire.ResponseHead;
import io.netty.buffer.ByteBuf;

/**
 * The response side of one HTTP/1.x exchange, as bytes: reads the member's answer head once
 * (interim ones pass through), passes its body on framed by content-length or chunks, holds an
 * answer a retry may replace and sends the head together with the first small body bytes, all
 * through {@link ClientOutput}. {@link Http1Exchange} feeds it what the member sends and decides
 * what a head, an end or a broken body means for the request; this class decides nothing about
 * tries. Event loop only.
 */
final class ResponseRelay {
  private static final int MAX_HEAD = 64 * 1024;
  private static final int HOLD_LIMIT = ClientOutput.HOLD_LIMIT;
  private static final int COALESCE = 2048;

  /** The client connection, as far as an answer's head needs it ({@link Http1Connection}). */
  interface Client extends ClientOutput.Client {
    /** Whether the client spoke HTTP/1.0 (its connection closes after the answer). */
    boolean http10();

    /** Whether the data plane drains (the answer tells the client its connection closes). */
    boolean draining();
  }

  /** The member's side of the request ({@link RequestRelay}). */
  interface Request {
    /** The member connection carries no other request: bytes beyond the answer, or it closes. */
    void spend();
  }

  /** What a piece of the body did to the answer. */
  enum BodyRead {
    MORE,
    ENDED,
    MALFORMED
  }

  private final Client client;
  private final Request request;
  private final ClientOutput out;
  private final ResponseHead head;
  private final boolean headRequest;

  /** The member's load report goes on to the client (the pool says so); else it is dropped. */
  private final boolean forwardLoadReports;

  private final boolean sentContinue;

  /** A cookie made up for a ConsistentHash pool: the response hands it to the client. */
  private final String setCookie;

  /** The chunked answer's framer, made when an answer is chunked (most are not). */
  private ChunkedFramer chunks;

  /** The start of a head that has not all come yet. */
  private ByteBuf partial;

  /** Where the answer of the try in front stands. */
  enum Phase {
    /** Its head is being read. */
    HEAD,
    /**
     * Its head is in; it has not begun, or it was held and ended (it goes, or a retry replaces it).
     */
    HEAD_READ,
    /** Its head and body are held: a retry may replace it. */
    HOLDING,
    /** Some of it went to the client: it can no longer be answered anew. */
    PASSED
  }

  private Phase phase = Phase.HEAD;
  private String invalid;
  private long left;
  private boolean closeClient;

  /** An answer held for a retry: it goes out should no other try answer; it outlives its try. */
  private ByteBuf held;

  /** The response head, waiting to go out with the first body bytes in one write. */
  private ByteBuf pendingHead;

  ResponseRelay(
      Client client,
      Request request,
      ClientOutput out,
      ResponseHead head,
      boolean headRequest,
      boolean sentContinue,
      boolean closeClient,
      String setCookie,
      boolean forwardLoadReports) {
    this.client = client;
    this.request = request;
    this.out = out;
    this.head = head;
    this.headRequest = headRequest;
    this.sentContinue = sentContinue;
    this.closeClient = closeClient;
    this.setCookie = setCookie;
    this.forwardLoadReports = forwardLoadReports;
  }

  /**
   * Reads the member's bytes up to the end of its answer's final head (interim heads go to the
   * client). Returns the bytes after it, the head parsed; null when the head is incomplete (kept
   * until more comes) or invalid ({@link #invalidHead} says why). {@code buf} is the caller's no
   * more.
   */
  ByteBuf nextHead(ByteBuf buf) {
    invalid = null;
    if (partial != null) {
      partial.writeBytes(buf);
      buf.release();
      buf = partial;
      partial = null;
    }
    while (true) {
      int len = HeadScanner.headLength(buf, MAX_HEAD, MAX_HEAD);
      if (len == 0) {
        if (buf.readableBytes() > 0) {
          partial = client.alloc().buffer(Math.max(1024, buf.readableBytes() * 2));
          partial.writeBytes(buf);
        }
        buf.release();
        return null;
      }
      invalid =
          len < 0
              ? "response head too large"
              : head.parse(buf, len, headRequest, forwardLoadReports);
      if (invalid != null) {
        buf.release();
        return null;
      }
      if (!head.interim()) {
        buf.skipBytes(len);
        phase = Phase.HEAD_READ;
        return buf;
      }
      ByteBuf interim = buf.readRetainedSlice(len);
      if (head.status() == 100 && sentContinue) {
        interim.release(); // the proxy answered the client's Expect itself
      } else {
        out.write(interim);
      }
    }
  }

  /** Why the last head read was refused; null when it was not. */
  String invalidHead() {
    return invalid;
  }

  Phase phase() {
    return phase;
  }

  boolean headDone() {
    return phase != Phase.HEAD;
  }

  int status() {
    return head.status();
  }

  /** The member's load report in the answer's head, or null. */
  LoadReport loadReport() {
    return head.loadReport();
  }

  ResponseHead.Framing framing() {
    return head.framing();
  }

  /** The head is in: the answer is held ({@code hold}, a retry may replace it) or begins. */
  void begin(boolean hold) {
    if (hold) {
      phase = Phase.HOLDING;
      held = client.alloc().buffer(512);
      head.writeDownstream(held, closeClient, setCookie);
    } else {
      start();
    }
    switch (head.framing()) {
      case NONE -> left = 0;
      case LENGTH -> left = head.contentLength();
      case CHUNKED -> {
        if (chunks == null) {
          chunks = ChunkedFramer.lenient();
        } else {
          chunks.reset();
        }
      }
      case UNTIL_CLOSE -> left = Long.MAX_VALUE;
    }
    if (head.framing() == ResponseHead.Framing.UNTIL_CLOSE || head.memberCloses()) {
      request.spend();
    }
  }

  private void start() {
    phase = Phase.PASSED;
    if (client.http10() || head.framing() == ResponseHead.Framing.UNTIL_CLOSE) {
      closeClient = true;
    }
    ByteBuf out = client.alloc().buffer(head.length() + 64);
    head.writeDownstream(out, closeClient || client.draining(), setCookie);
    pendingHead = out;
  }

  /** Body bytes of the answer, as its head frames them; {@code buf} is the caller's no more. */
  BodyRead body(ByteBuf buf) {
    int readable = buf.readableBytes();
    int take;
    boolean ends = false;
    switch (head.framing()) {
      case LENGTH -> take = (int) Math.min(left, readable);
      case UNTIL_CLOSE -> take = readable;
      case CHUNKED -> {
        int end = chunks.feed(buf, buf.readerIndex(), buf.writerIndex(), null);
        if (end == ChunkedFramer.MALFORMED) {
          buf.release();
          return BodyRead.MALFORMED;
        }
        ends = end != ChunkedFramer.MORE;
        take = ends ? end - buf.readerIndex() : readable;
      }
      default -> take = 0;
    }
    if (take < readable) {
      request.spend(); // bytes beyond the response: the connection cannot be trusted
    }
    if (take > 0) {
      emit(buf, take);
    }
    buf.release();
    if (head.framing() == ResponseHead.Framing.LENGTH) {
      left -= take;
      ends = left == 0;
    }
    return ends ? BodyRead.ENDED : BodyRead.MORE;
  }

  private void emit(ByteBuf buf, int take) {
    if (phase == Phase.HOLDING) {
      if (held.readableBytes() + take > HOLD_LIMIT) {
        phase = Phase.PASSED; // too large to hold: pass it on as it is
        ByteBuf h = held;
        held = null;
        out.write(h);
      } else {
        held.writeBytes(buf, buf.readerIndex(), take);
        buf.skipBytes(take);
        return;
      }
    }
    if (pendingHead != null && take <= COALESCE) {
      pendingHead.writeBytes(buf, buf.readerIndex(), take);
      buf.skipBytes(take);
      flushHead();
      return;
    }
    flushHead();
    out.write(buf.readRetainedSlice(take));
  }

  /** The head goes out even without body bytes to go with it (none came in this read). */
  void flushHead() {
    if (pendingHead != null) {
      ByteBuf h = pendingHead;
      pendingHead = null;
      out.write(h);
    }
  }

  /** Whether an answer is held back for a retry; clears it. */
  boolean stopHolding() {
    if (phase != Phase.HOLDING) {
      return false;
    }
    phase = Phase.HEAD_READ;
    return true;
  }

  boolean hasHeld() {
    return held != null;
  }

  /** The held answer goes to the client after all; false when there is none. */
  boolean sendHeld() {
    ByteBuf h = held;
    held = null;
    if (h == null) {
      return false;
    }
    phase = Phase.PASSED;
    client.write(h);
    client.flush();
    return true;
  }

  /** Whether part of the answer went to the client: it can no longer be answered anew. */
  boolean started() {
    return phase == Phase.PASSED;
  }

  /** Whether the client's connection closes after this answer. */
  boolean closeClient() {
    return closeClient;
  }

  /** Another try follows: its answer's head is read afresh. */
  void reset() {
    phase = Phase.HEAD;
  }

  /** Drops what a given-up try sent of an answer's head. */
  void dropPartialHead() {
    if (partial != null) {
      partial.release();
      partial = null;
    }
  }

  /** The exchange finished: every buffer still held goes. */
  void release() {
    dropPartialHead();
    if (held != null) {
      held.release();
      held = null;
    }
    if (pendingHead != null) {
      pendingHead.release();
      pendingHead = null;
    }
  }
}
