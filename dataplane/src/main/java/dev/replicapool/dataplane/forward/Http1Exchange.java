package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.accesslog.AccessFlag;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.RequestPolicy;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.HashKey;
import dev.replicapool.dataplane.tracing.RequestTrace;
import dev.replicapool.dataplane.upstream.H1Upstream;
import dev.replicapool.dataplane.wire.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;

/**
 * One HTTP/1.x request of a client connection on its way to a member and back, every try of it.
 * {@link Http1Connection} starts one per request (made by {@link Http1Routing}), hands it the body
 * and ends it when the client goes; the member connection of the try in front hands it what the
 * member sends. It decides what the member's answer means (held for a retry, passed on, complete,
 * broken) and how the request ends; the rest lives apart, each in its own room:
 *
 * <ul>
 *   <li>{@link TryRunner}: the tries (member, connection, retries, hedges, timeouts, the queue);
 *   <li>{@link RequestRelay}: the head and body on their way to the member, and its connection;
 *   <li>{@link ResponseRelay}: the answer's bytes (head once, framed body, held answer), which go
 *       out through {@link ClientOutput} (kept back while the client still sends its body, which it
 *       passes on, and drops the rest of once the answer is complete);
 *   <li>{@link FrontTry}: the try in front and how its end is counted;
 *   <li>{@link RequestRecord}: what is written down about the request (metrics, access-log line,
 *       trace), the same for an HTTP/2 stream; this notes bytes, first byte and flags.
 * </ul>
 *
 * <p>Touched on the client's event loop only (the member connections are on the same loop). Why it
 * is over 300 lines: every way an HTTP/1.x request can end (answered whole, answered by the proxy,
 * given up, broken mid-answer, the client's stall or silence, a tunnel) is told apart here, in the
 * bytes each leaves the client; the end itself (the parts let go, the record) is its {@link
 * TryLoop}'s, the same as for an HTTP/2 stream, and what each part does is in its own class, above.
 */
final class Http1Exchange implements TryRunner.ClientSide {
  /**
   * The client connection, as far as its request's exchange needs it ({@link Http1Connection},
   * which starts the exchange and so is not known to it by name).
   */
  interface Client extends ResponseRelay.Client, RequestRelay.Client {
    /** The loop the connection is on; its member connections are opened on it too. */
    EventLoop eventLoop();

    /** The proxy's own answer for the current request; returns its length in bytes. */
    int answer(int status, String message, String pool, boolean close);

    /** The exchange's answer is complete (or answered locally); {@code close}: the client's too. */
    void responseDone(Http1Exchange done, boolean close);

    /** The answer broke off half-way: the client cannot be answered properly. */
    void brokenResponse();

    /** 101 Switching Protocols: bytes flow both ways over {@code up}. */
    void tunnel(H1Upstream up, Endpoint member, ByteBuf firstBytes);
  }

  private final Client client;
  private final Forwarding fw;
  private final PoolRuntime pool;
  private final long startNanos;
  private final boolean upgrade;
  private final Deadlines deadlines;
  private final FrontTry front;
  private final RequestRelay request;
  private final ClientOutput out;
  private final ResponseRelay response;
  private final TryRunner runner;

  private final RequestRecord record;

  private int status;

  Http1Exchange(
      Client client,
      Forwarding fw,
      PoolRuntime pool,
      ByteBuf head,
      int traceparentAt,
      RequestTrace.Incoming traced,
      boolean idempotent,
      boolean bodyless,
      boolean chunked,
      boolean headRequest,
      boolean upgrade,
      boolean closeAfter,
      boolean sentContinue,
      ResponseHead resp,
      HashKey.Key hashKey) {
    this.client = client;
    this.fw = fw;
    this.pool = pool;
    this.upgrade = upgrade;
    this.startNanos = fw.clock.getAsLong();
    // replayable: its body, if any, is kept for a retry until it outgrows what is kept
    Tries tries = new Tries(pool.retry(), pool.requests(), idempotent, true, hashKey.value());
    this.request = new RequestRelay(client, head, traceparentAt, bodyless, chunked, tries);
    this.record = RequestRecord.begin(fw, pool, startNanos, traced);
    this.front = new FrontTry(fw, pool, record);
    RequestPolicy rp = pool.requests();
    this.deadlines = new Deadlines(startNanos, rp.requestNanos(), rp.perTryNanos(), rp.idleNanos());
    if (!bodyless && !upgrade) {
      deadlines.requestOwed(startNanos);
    }
    this.out = new ClientOutput(client, request);
    this.response =
        new ResponseRelay(
            client,
            request,
            out,
            resp,
            headRequest,
            sentContinue,
            closeAfter,
            hashKey.setCookie(),
            pool.forwardsLoadReports());
    this.runner =
        new TryRunner(
            this, client.eventLoop(), fw, pool, tries, deadlines, front, record, request, response);
    if (!upgrade) {
      runner.hedgeIfCovered();
    }
  }

  // ---- what the client connection hands over ------------------------------------------------

  void start() {
    runner.start();
  }

  /** Body bytes from the client (framing included, as received); {@code last} ends the body. */
  void requestBody(ByteBuf bytes, boolean last) {
    deadlines.clientSent(fw.clock.getAsLong(), last);
    record.bytesIn(bytes.readableBytes());
    if (out.clientBody(bytes, last, finished())) {
      releaseKept();
    }
    if (last) {
      runner.armTimer(); // a hedge's delay counts from the body's end (Deadlines)
    }
  }

  /** The end of a read from the client. */
  void flushUpstream() {
    if (out.readEnded()) {
      releaseKept();
    }
    request.flush();
  }

  /**
   * The client can take more, or not: the member's reads follow it, and while they are paused the
   * member's silence is the client's ({@link Deadlines#clientBlocked}).
   */
  void clientWritable(boolean writable) {
    request.memberReads(writable);
    long now = fw.clock.getAsLong();
    if (writable) {
      deadlines.clientUnblocked(now);
    } else if (!finished()) {
      deadlines.clientBlocked(now);
      runner.armTimer();
    }
  }

  /**
   * The proxy stopped reading the client, or reads it again: its silence is not its own meanwhile.
   */
  void clientReadsPaused(boolean paused) {
    deadlines.clientReadsPaused(paused, fw.clock.getAsLong());
  }

  /**
   * The client took none of the answer for the idle timeout: the answer is cut and the connection
   * closed, as when the client goes away; nothing is counted against the member.
   */
  @Override
  public void clientStalled() {
    endForClient("answer", null);
  }

  /**
   * The client sent none of the rest of its request for the idle timeout while the member waited
   * for it: 408 and the connection closed (an answer under way is cut); nothing is counted against
   * the member.
   */
  @Override
  public void clientSilent() {
    long ms = pool.requests().idleNanos() / 1_000_000L;
    endForClient("request", "the client sent none of the rest of its request for " + ms + " ms");
  }

  /** Ends the request for its client's stall ({@code side}); a 408 with {@code why} if any. */
  private void endForClient(String side, String why) {
    if (finished()) {
      return;
    }
    flag(AccessFlag.SI);
    fw.observer.clientStalled(pool.name(), client.fullDuplex() ? "h2" : "http1", side);
    front.aborted();
    request.dropConnection();
    if (why != null && !out.wroteToClient()) {
      this.status = 408;
      local();
      record.bytesOut(client.answer(408, why, pool.name(), true));
    }
    finish(status);
    client.brokenResponse();
  }

  /**
   * The client's side failed: its body is too large or cannot be framed (the proxy answers), or it
   * went away. Not the member's doing: nothing is counted against it, nothing retried.
   */
  void abort(int status, String message) {
    if (finished()) {
      return;
    }
    front.aborted();
    request.dropConnection();
    if (status > 0 && !out.wroteToClient()) {
      this.status = status;
      local();
      record.bytesOut(client.answer(status, message, pool.name(), true));
    }
    finish(status > 0 ? status : 499);
  }

  // ---- what the member sends -----------------------------------------------------------------

  @Override
  public void memberBytes(ByteBuf buf) {
    deadlines.activity(fw.clock.getAsLong());
    while (!response.headDone()) {
      buf = response.nextHead(buf);
      if (buf == null) {
        String bad = response.invalidHead();
        if (bad != null) {
          flag(AccessFlag.UPE);
          memberBroke(pool.aboutMember(front.member(), "sent an invalid response: " + bad));
        }
        return;
      }
      responseHead(buf.isReadable());
      if (finished()) {
        buf.release();
        return;
      }
    }
    body(buf);
  }

  /**
   * The answer's head came: the try is counted, then the answer is held or begins. {@code more}:
   * bytes follow the head in the same read.
   */
  private void responseHead(boolean more) {
    status = response.status();
    front.reported(response.loadReport());
    boolean hold = runner.answerHead(status);
    if (!hold) {
      request.dropHead();
      record.firstByte(fw.clock.getAsLong());
    }
    response.begin(hold);
    if (upgrade && status == 101) {
      return; // the tunnel starts once the head is out (body())
    }
    if (response.framing() == ResponseHead.Framing.NONE) {
      if (more) {
        request.spend(); // bytes after a bodyless answer: the member answers something not asked
      }
      responseEnded();
    }
  }

  private void body(ByteBuf buf) {
    if (upgrade && status == 101) {
      response.flushHead();
      H1Upstream up = request.takeConnection();
      finish(101); // the tunnel owns both connections from now on (the end stops the timer)
      client.tunnel(up, front.member(), buf);
      return;
    }
    if (finished()) {
      buf.release();
      return;
    }
    ResponseRelay.BodyRead read = response.body(buf);
    if (read == ResponseRelay.BodyRead.ENDED) {
      responseEnded();
    } else if (read == ResponseRelay.BodyRead.MALFORMED) {
      memberBroke(pool.aboutMember(front.member(), "sent a malformed chunked body"));
    }
  }

  @Override
  public void memberReadComplete() {
    response.flushHead();
    client.flush();
  }

  /** The member's response is complete. */
  private void responseEnded() {
    response.flushHead();
    front.end();
    if (response.stopHolding()) {
      request.releaseConnection();
      runner.heldAnswerEnded(status);
      return;
    }
    request.releaseConnection();
    runner.stopTimer();
    if (out.completeNow()) {
      client.flush();
      ended();
    }
  }

  @Override
  public void memberClosed() {
    boolean had = request.connectionClosed();
    if (finished() || !had) {
      return;
    }
    if (upgrade && status == 101) {
      return; // the tunnel owns both connections now
    }
    if (response.headDone() && response.framing() == ResponseHead.Framing.UNTIL_CLOSE) {
      responseEnded();
      return;
    }
    if (response.started()) {
      // Part of the answer went out: it cannot be completed nor answered anew.
      front.failed("reset");
      breakAnswer();
      return;
    }
    runner.closedBeforeAnswer();
  }

  /** The answer under way breaks off: the request ends, the client's connection is broken. */
  @Override
  public void breakAnswer() {
    flag(AccessFlag.UC);
    finish(status);
    client.brokenResponse();
  }

  private void memberBroke(String why) {
    giveUp("reset", 502, why);
  }

  // ---- endings -------------------------------------------------------------------------------

  /**
   * The try in front failed for good (a broken answer, a timeout): counted against its member; the
   * client gets {@code status} when no answer started, else its connection is broken.
   */
  @Override
  public void giveUp(String outcome, int status, String message) {
    if (front.member() != null) {
      front.failed(outcome);
    }
    request.dropConnection();
    if (response.started()) {
      AccessFlag f = AccessFlag.ofTryOutcome(outcome);
      if (f != null) {
        flag(f);
      }
      finish(this.status);
      client.brokenResponse();
    } else {
      answer(status, message);
    }
  }

  /** The proxy answers the client itself ({@code status}, {@code message}). */
  @Override
  public void answer(int status, String message) {
    this.status = status;
    local();
    request.dropConnection();
    boolean close = response.closeClient() || !request.ended();
    TryLoop.LastAnswer answer = () -> client.answer(status, message, pool.name(), close);
    if (!runner.end(status, answer)) {
      answer.write(); // it had ended (its record is written): the answer still goes out
    }
    client.responseDone(this, close);
  }

  /** The answer went out whole: the client connection goes on with its next request. */
  @Override
  public void ended() {
    finish(status);
    client.responseDone(this, response.closeClient());
  }

  /** The client's body is complete: the answer kept back meanwhile goes out. */
  private void releaseKept() {
    if (out.releaseKept()) {
      ended();
    }
  }

  /** Ends the request once ({@link TryLoop#end(int)}): the client got {@code status}. */
  private void finish(int status) {
    runner.end(status);
  }

  /** The request ended: the relays let go of what they hold; what went out is counted. */
  @Override
  public void release() {
    request.release();
    response.release();
    out.release();
    record.bytesOut(out.written());
  }

  /** What is written down about the request. */
  RequestRecord record() {
    return record;
  }

  /** Notes {@code f} on the access-log line, if the request is logged. */
  @Override
  public void flag(AccessFlag f) {
    record.flag(f);
  }

  /** The proxy answers itself: noted, if the request is logged. */
  private void local() {
    record.local(null);
  }

  @Override
  public boolean finished() {
    return runner.ended();
  }
}
