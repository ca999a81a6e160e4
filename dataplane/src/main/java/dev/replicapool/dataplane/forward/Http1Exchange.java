package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.HashKey;
import dev.replicapool.dataplane.upstream.H1OverH2;
import dev.replicapool.dataplane.upstream.H1Upstream;
import dev.replicapool.dataplane.upstream.H2MemberConnections;
import dev.replicapool.dataplane.upstream.MemberConnections;
import dev.replicapool.dataplane.wire.ChunkedFramer;
import dev.replicapool.dataplane.wire.HeadScanner;
import dev.replicapool.dataplane.wire.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One HTTP/1.x request of a client connection on its way to a member and back, every try of it:
 * picks the member, takes a kept-alive connection to it (or opens one), writes the head the proxy
 * prepared and passes the body through, then reads the member's response head once and passes its
 * body through as bytes. Retries follow {@link Tries}. Touched on the client's event loop only (the
 * member connection is on the same loop).
 *
 * <p>Why one class for both directions: the decisions of one direction depend on the other (a
 * response before the body ended, a reset before any answer), and keeping them in one place keeps
 * "why was this retried" to one answer. The byte handling itself lives in the wire package.
 */
final class Http1Exchange implements H1Upstream.User, MemberConnections.ConnectListener {
  private static final int MAX_RESPONSE_HEAD = 64 * 1024;
  private static final int HOLD_LIMIT = 64 * 1024;
  private static final int COALESCE = 2048;

  private final Http1Connection client;
  private final Forwarding fw;
  final PoolRuntime pool;
  private final Tries tries;
  private final long startNanos;
  private final boolean headRequest;
  final boolean upgrade;
  private final boolean bodyless;

  /** A cookie made up for a ConsistentHash pool: the response hands it to the client. */
  private final String setCookie;

  /** The head as the member gets it; kept until the response head came, for retries. */
  private ByteBuf head;

  /** Body bytes received before a member connection was there. */
  private ArrayDeque<ByteBuf> queued;

  private boolean requestEnded;
  private boolean bodyWritten;

  Endpoint current;
  private long attemptStart;
  H1Upstream upstream;
  private boolean upstreamDirty;

  private ByteBuf respIn;
  private final ResponseHead resp;
  private boolean responseHeadDone;
  private boolean responseStarted;
  private long respLeft;
  private final ChunkedFramer respChunks = new ChunkedFramer();
  private boolean closeClientAfter;
  private boolean sentContinue;
  private ByteBuf held;
  private boolean holding;
  private int status;
  private boolean finished;
  private ScheduledFuture<?> timer;
  private long lastMemberActivity;
  private String failureMessage;
  private int failureStatus = 502;

  Http1Exchange(
      Http1Connection client,
      Forwarding fw,
      PoolRuntime pool,
      ByteBuf head,
      boolean idempotent,
      boolean bodyless,
      boolean headRequest,
      boolean upgrade,
      boolean closeAfter,
      boolean sentContinue,
      ResponseHead resp,
      HashKey.Key hashKey) {
    this.client = client;
    this.fw = fw;
    this.pool = pool;
    this.head = head;
    this.bodyless = bodyless;
    this.tries = new Tries(pool.retry(), idempotent, bodyless, hashKey.value());
    this.setCookie = hashKey.setCookie();
    this.startNanos = fw.clock.getAsLong();
    this.headRequest = headRequest;
    this.upgrade = upgrade;
    this.requestEnded = bodyless;
    this.closeClientAfter = closeAfter;
    this.sentContinue = sentContinue;
    this.resp = resp;
  }

  // ---- request side --------------------------------------------------------------------------

  void start() {
    sendTry();
  }

  private void sendTry() {
    Endpoint e = tries.next(pool.router());
    if (e == null) {
      if (held != null) {
        sendHeld();
      } else if (tries.tried().isEmpty()) {
        answer(503, "no routable member in pool " + pool.name());
      } else {
        answer(failureStatus, failureMessage);
      }
      return;
    }
    current = e;
    attemptStart = fw.clock.getAsLong();
    if (pool.http2Members()) {
      // An HTTP/1.1 request to members that speak HTTP/2 only: a stream of its own.
      H1Upstream oneShot = H1Upstream.oneShot();
      fw.h2Connections(client.eventLoop())
          .openStream(
              memberKey(e),
              e.host(),
              e.port(),
              pool.upstreamTls(),
              H1OverH2.pipeline(oneShot),
              new H2MemberConnections.StreamListener() {
                @Override
                public void opened(Http2StreamChannel stream) {
                  connected(oneShot);
                }

                @Override
                public void failed(Throwable cause) {
                  Http1Exchange.this.failed(cause);
                }
              });
      return;
    }
    MemberConnections conns = fw.connections(client.eventLoop());
    String key = memberKey(e);
    H1Upstream c = conns.poll(key);
    if (c != null) {
      connected(c);
    } else {
      conns.connect(key, e.host(), e.port(), pool.upstreamTls(), this);
    }
  }

  /** Connections are shared by member address, TLS ones only within their pool's TLS settings. */
  private String memberKey(Endpoint e) {
    return pool.upstreamTls() == null ? e.address() : pool.upstreamTls().key() + e.address();
  }

  @Override
  public void connected(H1Upstream c) {
    if (finished) {
      c.release(); // the client's side gave up meanwhile: nothing was written
      return;
    }
    upstream = c;
    upstreamDirty = false;
    c.attach(this);
    lastMemberActivity = System.nanoTime();
    armTimer();
    c.channel().write(bodyless ? head.retainedDuplicate() : head, c.channel().voidPromise());
    if (!bodyless) {
      head = null; // a body follows: never retried, nothing to keep
      bodyWritten = true;
    }
    if (queued != null) {
      ByteBuf b;
      while ((b = queued.poll()) != null) {
        c.channel().write(b, c.channel().voidPromise());
      }
      queued = null;
      client.resumeReading();
    }
    c.channel().flush();
  }

  @Override
  public void failed(Throwable cause) {
    long nanos = endAttempt();
    if (finished) {
      return;
    }
    Endpoint e = lastTried();
    pool.router().failure(e, nanos);
    fw.observer.attempt(pool.name(), e, "connect_failure", nanos);
    failureStatus = 502;
    failureMessage = "member " + e.address() + " of pool " + pool.name() + " is unreachable";
    if (tries.shouldRetry(Tries.Outcome.CONNECT_FAILURE)) {
      fw.observer.retry(pool.name(), "connect_failure");
      sendTry();
    } else if (held != null) {
      sendHeld();
    } else {
      answer(502, failureMessage);
    }
  }

  /** Body bytes from the client (framing included, as received); {@code last} ends the body. */
  void requestBody(ByteBuf bytes, boolean last) {
    if (last) {
      requestEnded = true;
    }
    if (finished || memberDone) {
      bytes.release(); // the member's answer is complete: what is left of the body is dropped
      if (last) {
        releaseDeferred();
      }
      return;
    }
    if (last) {
      releaseDeferredLater = true;
    }
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

  private boolean memberDone;
  private boolean wroteToClient;
  private boolean releaseDeferredLater;

  void flushUpstream() {
    if (releaseDeferredLater) {
      releaseDeferredLater = false;
      releaseDeferred();
    }
    if (upstream != null) {
      upstream.channel().flush();
      if (!upstream.channel().isWritable()) {
        client.pauseReading();
      }
    }
  }

  boolean upstreamWritable() {
    return upstream == null || upstream.channel().isWritable();
  }

  /**
   * The client's side failed: its body is too large or cannot be framed (the proxy answers), or it
   * went away. Not the member's doing: nothing is counted against it, nothing retried.
   */
  void abort(int status, String message) {
    if (finished) {
      return;
    }
    Endpoint e = current;
    long nanos = endAttempt();
    if (e != null) {
      fw.observer.attempt(pool.name(), e, "aborted", nanos);
    }
    dropUpstream();
    if (status > 0 && !wroteToClient) {
      this.status = status;
      client.answer(status, message, pool.name(), true);
    }
    finish(status > 0 ? status : 499);
  }

  // ---- response side -------------------------------------------------------------------------

  @Override
  public void memberBytes(ByteBuf buf) {
    lastMemberActivity = System.nanoTime();
    if (responseHeadDone) {
      body(buf);
      return;
    }
    if (respIn != null) {
      respIn.writeBytes(buf);
      buf.release();
      buf = respIn;
      respIn = null;
    }
    while (!responseHeadDone) {
      int len = HeadScanner.headLength(buf, MAX_RESPONSE_HEAD, MAX_RESPONSE_HEAD);
      if (len == 0) {
        if (buf.readableBytes() > 0) {
          respIn = client.alloc().buffer(Math.max(1024, buf.readableBytes() * 2));
          respIn.writeBytes(buf);
        }
        buf.release();
        return;
      }
      String bad = len < 0 ? "response head too large" : resp.parse(buf, len, headRequest);
      if (bad != null) {
        buf.release();
        memberBroke(
            "member "
                + current.address()
                + " of pool "
                + pool.name()
                + " sent an invalid response: "
                + bad);
        return;
      }
      if (resp.interim()) {
        ByteBuf interim = buf.readRetainedSlice(len);
        if (resp.status() == 100 && sentContinue) {
          interim.release(); // the proxy answered the client's Expect itself
        } else {
          out(interim);
        }
        continue;
      }
      buf.skipBytes(len);
      responseHead();
      if (finished) {
        buf.release();
        return;
      }
    }
    body(buf);
  }

  private void responseHead() {
    responseHeadDone = true;
    status = resp.status();
    Endpoint e = current;
    long nanos = fw.clock.getAsLong() - attemptStart;
    if (status >= 500) {
      pool.router().failure(e, nanos);
    } else {
      pool.router().success(e, nanos);
    }
    fw.observer.attempt(pool.name(), e, STATUS_CLASS[status / 100], nanos);
    boolean hold =
        tries.wouldRetryAnswer(status) && pool.router().endpoints().size() > tries.tried().size();
    if (head != null && !hold) {
      head.release();
      head = null;
    }
    if (hold) {
      holding = true;
      held = client.alloc().buffer(512);
      resp.writeDownstream(held, closeClientAfter, true, setCookie);
    } else {
      startResponse();
    }
    switch (resp.framing()) {
      case NONE -> respLeft = 0;
      case LENGTH -> respLeft = resp.contentLength();
      case CHUNKED -> respChunks.reset();
      case UNTIL_CLOSE -> respLeft = Long.MAX_VALUE;
    }
    if (resp.framing() == ResponseHead.Framing.UNTIL_CLOSE || resp.memberCloses()) {
      upstreamDirty = true;
    }
    if (upgrade && status == 101) {
      return; // the tunnel starts once the head is out (body())
    }
    if (resp.framing() == ResponseHead.Framing.NONE) {
      responseEnded();
    }
  }

  private void startResponse() {
    responseStarted = true;
    if (client.http10() || resp.framing() == ResponseHead.Framing.UNTIL_CLOSE) {
      closeClientAfter = true;
    }
    ByteBuf out = client.alloc().buffer(resp.length() + 64);
    resp.writeDownstream(out, closeClientAfter || client.draining(), true, setCookie);
    pendingHead = out;
  }

  /** The response head, waiting to go out with the first body bytes in one write. */
  private ByteBuf pendingHead;

  private void body(ByteBuf buf) {
    if (upgrade && status == 101) {
      flushHead();
      client.tunnel(this, buf);
      return;
    }
    if (finished) {
      buf.release();
      return;
    }
    int readable = buf.readableBytes();
    int take;
    boolean ends = false;
    switch (resp.framing()) {
      case LENGTH -> take = (int) Math.min(respLeft, readable);
      case UNTIL_CLOSE -> take = readable;
      case CHUNKED -> {
        int end = respChunks.feed(buf, buf.readerIndex(), buf.writerIndex(), null);
        if (end == ChunkedFramer.MALFORMED) {
          buf.release();
          memberBroke("member " + current.address() + " sent a malformed chunked body");
          return;
        }
        if (end == ChunkedFramer.MORE) {
          take = readable;
        } else {
          take = end - buf.readerIndex();
          ends = true;
        }
      }
      default -> take = 0;
    }
    if (take < readable) {
      upstreamDirty = true; // bytes beyond the response: the connection cannot be trusted
    }
    if (take > 0) {
      emit(buf, take);
    }
    buf.release();
    if (resp.framing() == ResponseHead.Framing.LENGTH) {
      respLeft -= take;
      ends = respLeft == 0;
    }
    if (ends) {
      responseEnded();
    }
  }

  private void emit(ByteBuf buf, int take) {
    if (holding) {
      if (held.readableBytes() + take > HOLD_LIMIT) {
        holding = false; // too large to hold: pass it on as it is
        ByteBuf h = held;
        held = null;
        responseStarted = true;
        out(h);
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
    out(buf.readRetainedSlice(take));
  }

  private void flushHead() {
    if (pendingHead != null) {
      ByteBuf h = pendingHead;
      pendingHead = null;
      out(h);
    }
  }

  /**
   * Response bytes for the client. While the client is still sending its body they wait: the answer
   * goes out once the body is complete (so a body past the limit still gets its 413), at most
   * {@code HOLD_LIMIT} of it, beyond which the member is not read until then.
   */
  private void out(ByteBuf b) {
    if (requestEnded || client.fullDuplex()) {
      wroteToClient = true;
      client.write(b);
      return;
    }
    if (deferred == null) {
      deferred = client.alloc().compositeBuffer(64);
    }
    deferred.addComponent(true, b);
    if (deferred.readableBytes() > HOLD_LIMIT && upstream != null) {
      upstream.channel().config().setAutoRead(false);
    }
  }

  private io.netty.buffer.CompositeByteBuf deferred;
  private boolean deferredEnd;

  /** The client's body is complete: the answer held meanwhile goes out. */
  private void releaseDeferred() {
    if (deferred != null) {
      ByteBuf d = deferred;
      deferred = null;
      wroteToClient = true;
      client.write(d);
      client.flush();
      if (upstream != null) {
        upstream.channel().config().setAutoRead(true);
      }
    }
    if (deferredEnd) {
      deferredEnd = false;
      finish(status);
      client.responseDone(this, closeClientAfter);
    }
  }

  @Override
  public void memberReadComplete() {
    flushHead();
    client.flush();
  }

  /** The member's response is complete. */
  private void responseEnded() {
    flushHead();
    long nanos = endAttempt();
    if (holding) {
      holding = false;
      releaseUpstream();
      fw.observer.retry(pool.name(), "status_" + status);
      tries.shouldRetry(Tries.Outcome.UNAVAILABLE_ANSWER);
      resetResponse();
      // the held answer goes out if no other member can take the request
      sendTryAgain();
      return;
    }
    releaseUpstream();
    cancelTimer();
    memberDone = true;
    if (!requestEnded && !client.fullDuplex()) {
      deferredEnd = true; // answered once the client's body is complete
      return;
    }
    client.flush();
    finish(status);
    client.responseDone(this, closeClientAfter);
  }

  private void sendTryAgain() {
    if (head == null) {
      sendHeld();
      return;
    }
    sendTry();
  }

  private void resetResponse() {
    responseHeadDone = false;
    responseStarted = false;
  }

  private void sendHeld() {
    ByteBuf h = held;
    held = null;
    if (h == null) {
      answer(failureStatus, failureMessage);
      return;
    }
    responseStarted = true;
    client.write(h);
    client.flush();
    cancelTimer();
    finish(status);
    client.responseDone(this, closeClientAfter);
  }

  @Override
  public void memberClosed() {
    H1Upstream gone = upstream;
    upstream = null;
    if (finished || gone == null) {
      return;
    }
    if (upgrade && status == 101) {
      return; // the tunnel owns both connections now
    }
    if (responseHeadDone && resp.framing() == ResponseHead.Framing.UNTIL_CLOSE) {
      responseEnded();
      return;
    }
    if (responseStarted) {
      // Part of the answer went out: it cannot be completed nor answered anew.
      long nanos = endAttempt();
      pool.router().failure(lastTried(), nanos);
      fw.observer.attempt(pool.name(), lastTried(), "reset", nanos);
      finish(status);
      client.brokenResponse();
      return;
    }
    Endpoint e = current;
    long nanos = endAttempt();
    pool.router().failure(e, nanos);
    fw.observer.attempt(pool.name(), e, "reset", nanos);
    failureStatus = 502;
    failureMessage = "member " + e.address() + " of pool " + pool.name() + " closed the connection";
    if (holding) {
      holding = false;
      sendHeld();
      return;
    }
    if (head != null && !bodyWritten && tries.shouldRetry(Tries.Outcome.RESET_BEFORE_RESPONSE)) {
      resetResponse();
      fw.observer.retry(pool.name(), "reset");
      sendTry();
      return;
    }
    answer(502, failureMessage);
  }

  private void memberBroke(String why) {
    Endpoint e = current;
    long nanos = endAttempt();
    dropUpstream();
    if (e != null) {
      pool.router().failure(e, nanos);
      fw.observer.attempt(pool.name(), e, "reset", nanos);
    }
    if (responseStarted) {
      finish(status);
      client.brokenResponse();
    } else {
      answer(502, why);
    }
  }

  // ---- timeouts ------------------------------------------------------------------------------

  /** One timer per exchange, re-armed lazily: a busy member connection costs no timer churn. */
  private void armTimer() {
    if (timer == null) {
      long ms = fw.settings.upstreamIdleTimeoutMillis();
      timer = client.eventLoop().schedule(this::timerFired, ms, TimeUnit.MILLISECONDS);
    }
  }

  private void timerFired() {
    timer = null;
    if (finished || upstream == null) {
      return;
    }
    long idleNanos = System.nanoTime() - lastMemberActivity;
    long limit = TimeUnit.MILLISECONDS.toNanos(fw.settings.upstreamIdleTimeoutMillis());
    if (idleNanos < limit) {
      timer =
          client.eventLoop().schedule(this::timerFired, limit - idleNanos, TimeUnit.NANOSECONDS);
      return;
    }
    Endpoint e = current;
    long nanos = endAttempt();
    dropUpstream();
    pool.router().failure(e, nanos);
    fw.observer.attempt(pool.name(), e, "timeout", nanos);
    if (responseStarted) {
      finish(status);
      client.brokenResponse();
    } else {
      answer(504, "member " + e.address() + " of pool " + pool.name() + " did not answer in time");
    }
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  // ---- endings -------------------------------------------------------------------------------

  private void answer(int status, String message) {
    this.status = status;
    cancelTimer();
    dropUpstream();
    finish(status);
    boolean close = closeClientAfter || !requestEnded;
    client.answer(status, message, pool.name(), close);
    client.responseDone(this, close);
  }

  private long endAttempt() {
    Endpoint e = current;
    if (e == null) {
      return 0;
    }
    e.release();
    current = null;
    lastTried = e;
    return fw.clock.getAsLong() - attemptStart;
  }

  private Endpoint lastTried;

  private Endpoint lastTried() {
    return current != null ? current : lastTried;
  }

  private void releaseUpstream() {
    H1Upstream u = upstream;
    upstream = null;
    if (u == null) {
      return;
    }
    if (upstreamDirty || !requestEnded) {
      u.discard(); // a body still on its way, or a member that closes: never reused
    } else {
      u.release();
    }
  }

  private void dropUpstream() {
    H1Upstream u = upstream;
    upstream = null;
    if (u != null) {
      u.discard();
    }
  }

  private void finish(int status) {
    if (finished) {
      return;
    }
    finished = true;
    cancelTimer();
    if (head != null) {
      head.release();
      head = null;
    }
    if (queued != null) {
      queued.forEach(ByteBuf::release);
      queued = null;
    }
    if (respIn != null) {
      respIn.release();
      respIn = null;
    }
    if (held != null) {
      held.release();
      held = null;
    }
    if (pendingHead != null) {
      pendingHead.release();
      pendingHead = null;
    }
    if (deferred != null) {
      deferred.release();
      deferred = null;
    }
    fw.observer.response(pool.name(), status, fw.clock.getAsLong() - startNanos);
  }

  boolean finished() {
    return finished;
  }

  /** Hands the member connection over to a tunnel (101 Switching Protocols). */
  H1Upstream takeUpstreamForTunnel() {
    H1Upstream u = upstream;
    upstream = null;
    cancelTimer();
    finish(101);
    return u;
  }

  Endpoint member() {
    return current;
  }

  private static final String[] STATUS_CLASS = {"0xx", "1xx", "2xx", "3xx", "4xx", "5xx"};

  static ByteBuf empty() {
    return Unpooled.EMPTY_BUFFER;
  }
}
