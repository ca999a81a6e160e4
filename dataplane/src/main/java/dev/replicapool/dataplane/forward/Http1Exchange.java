package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.policy.AdmissionQueue;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.RequestPolicy;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.HashKey;
import dev.replicapool.dataplane.upstream.H1Upstream;
import dev.replicapool.dataplane.upstream.MemberConnections;
import dev.replicapool.dataplane.wire.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * One HTTP/1.x request of a client connection on its way to a member and back, every try of it:
 * picks the member, takes a kept-alive connection to it (or opens one), writes the head the proxy
 * prepared and passes the body through, then reads the member's response head once and passes its
 * body through as bytes. Retries and hedges follow {@link Tries}, the timeouts {@link Deadlines}
 * (one timer per exchange), a pool's in-flight limit its {@link AdmissionQueue}. Touched on the
 * client's event loop only (the member connections are on the same loop).
 *
 * <p>Why one class of this size for both directions and every try: the decisions of one direction
 * depend on the other (a response before the body ended, a reset before any answer) and on the
 * other tries (a hedge that answers first takes the place of the try in front), and keeping them in
 * one place keeps "why was this retried" to one answer. What can live apart does: the byte handling
 * in {@code wire}, every decision in {@code policy} (Tries, Deadlines, the budget), the connection
 * to a member in {@link MemberLinks}, a hedge's own connection in {@link HedgeTry}, the timer in
 * {@link DeadlineTimer}, the queue place in {@link QueueSlot}.
 */
final class Http1Exchange implements H1Upstream.User, QueueSlot.Owner {
  private final Http1Connection client;
  private final Forwarding fw;
  final PoolRuntime pool;
  private final Tries tries;
  private final long startNanos;
  final boolean upgrade;

  private final RequestRelay request;
  private final ClientOutput out;
  private final ResponseRelay response;

  private final FrontTry front;

  private int status;
  private boolean finished;
  private final Deadlines deadlines;
  private final DeadlineTimer timer;

  /** Null when the request is not hedged. */
  private Hedges hedges;

  /** Its place in the pool's queue while every member is full; null otherwise. */
  private QueueSlot queueSlot;

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
      String hedgeMethod,
      boolean upgrade,
      boolean closeAfter,
      boolean sentContinue,
      ResponseHead resp,
      HashKey.Key hashKey) {
    this.client = client;
    this.fw = fw;
    this.pool = pool;
    this.request = new RequestRelay(client, head, bodyless);
    this.front = new FrontTry(fw, pool);
    this.tries = new Tries(pool.retry(), pool.requests(), idempotent, bodyless, hashKey.value());
    this.startNanos = fw.clock.getAsLong();
    RequestPolicy rp = pool.requests();
    this.deadlines = new Deadlines(startNanos, rp.requestNanos(), rp.perTryNanos(), rp.idleNanos());
    this.timer = new DeadlineTimer(client.eventLoop(), fw.clock, deadlines, this::due);
    if (!upgrade && hedgeMethod != null && tries.hedgeable(hedgeMethod)) {
      hedges = new Hedges(fw, pool, tries, deadlines);
      deadlines.hedging(rp.hedging().maxHedges(), rp.hedging().delayNanos(rp.latencies()));
    }
    this.upgrade = upgrade;
    this.out = new ClientOutput(client, request);
    this.response =
        new ResponseRelay(
            client, request, out, resp, headRequest, sentContinue, closeAfter, hashKey.setCookie());
  }

  // ---- request side --------------------------------------------------------------------------

  void start() {
    timer.arm(); // the request's own deadline runs while it waits in the queue too
    AdmissionQueue q = pool.requests().queue();
    if (q != null && q.busy()) {
      // Others wait for a slot already: this request queues behind them.
      if (!waitForSlot()) {
        answer(503, QueueSlot.fullMessage(pool));
      }
      return;
    }
    sendTry();
  }

  private void sendTry() {
    Endpoint e = tries.next(pool.router());
    if (e == null) {
      noMemberForTry();
      return;
    }
    startTry(e);
  }

  private void startTry(Endpoint e) {
    deadlines.trySent(front.start(e));
    armTimer();
    open(e, new PrimaryConnect(e));
  }

  private void noMemberForTry() {
    boolean full = tries.noMember() == Tries.NoMember.ALL_FULL;
    if (full && tries.tried().isEmpty()) {
      if (waitForSlot()) {
        return;
      }
      answer(503, QueueSlot.fullMessage(pool));
    } else if (response.hasHeld()) {
      sendHeld();
    } else if (tries.tried().isEmpty()) {
      answer(503, "no routable member in pool " + pool.name());
    } else {
      answer(failureStatus, failureMessage);
    }
  }

  private void open(Endpoint e, MemberConnections.ConnectListener l) {
    MemberLinks.open(fw, client.eventLoop(), pool, e, l);
  }

  /** The connection of the try in front; one that comes after its try was given up is not used. */
  private final class PrimaryConnect implements MemberConnections.ConnectListener {
    private final Endpoint member;

    PrimaryConnect(Endpoint member) {
      this.member = member;
    }

    @Override
    public void connected(H1Upstream c) {
      if (finished || front.member() != member || request.hasConnection()) {
        c.release(); // given up meanwhile: nothing was written
        return;
      }
      Http1Exchange.this.connected(c);
    }

    @Override
    public void failed(Throwable cause) {
      if (!finished && front.member() == member && !request.hasConnection()) {
        Http1Exchange.this.failed(cause);
      }
    }
  }

  private void connected(H1Upstream c) {
    deadlines.activity(fw.clock.getAsLong());
    request.connected(c, this);
  }

  private void failed(Throwable cause) {
    Endpoint e = front.failed("connect_failure");
    failureStatus = 502;
    failureMessage = aboutMember(e, "is unreachable");
    if (hedgesInFlight()) {
      hedges.frontIsHedge();
    } else if (tries.shouldRetry(Tries.Outcome.CONNECT_FAILURE)) {
      fw.observer.retry(pool.name(), "connect_failure");
      sendTry();
    } else if (response.hasHeld()) {
      sendHeld();
    } else {
      answer(502, failureMessage);
    }
  }

  /** Body bytes from the client (framing included, as received); {@code last} ends the body. */
  void requestBody(ByteBuf bytes, boolean last) {
    if (last) {
      request.end();
    }
    if (finished || out.complete()) {
      bytes.release(); // the member's answer is complete: what is left of the body is dropped
      if (last) {
        releaseDeferred();
      }
      return;
    }
    if (last) {
      releaseDeferredLater = true;
    }
    request.body(bytes);
  }

  private boolean releaseDeferredLater;

  void flushUpstream() {
    if (releaseDeferredLater) {
      releaseDeferredLater = false;
      releaseDeferred();
    }
    request.flush();
  }

  /** The client can take more, or not: the member's reads follow it. */
  void clientWritable(boolean writable) {
    request.memberReads(writable);
  }

  /**
   * The client's side failed: its body is too large or cannot be framed (the proxy answers), or it
   * went away. Not the member's doing: nothing is counted against it, nothing retried.
   */
  void abort(int status, String message) {
    if (finished) {
      return;
    }
    front.aborted();
    request.dropConnection();
    if (status > 0 && !out.wroteToClient()) {
      this.status = status;
      client.answer(status, message, pool.name(), true);
    }
    finish(status > 0 ? status : 499);
  }

  // ---- response side -------------------------------------------------------------------------

  @Override
  public void memberBytes(ByteBuf buf) {
    deadlines.activity(fw.clock.getAsLong());
    while (!response.headDone()) {
      buf = response.nextHead(buf);
      if (buf == null) {
        String bad = response.invalidHead();
        if (bad != null) {
          memberBroke(aboutMember(front.member(), "sent an invalid response: " + bad));
        }
        return;
      }
      responseHead();
      if (finished) {
        buf.release();
        return;
      }
    }
    body(buf);
  }

  /** The answer's head came: the try is counted, then the answer is held or begins. */
  private void responseHead() {
    status = response.status();
    long now = fw.clock.getAsLong();
    deadlines.headReceived(now);
    cancelHedges("lost");
    front.answered(now, status);
    boolean hold =
        tries.wouldRetryAnswer(status) && pool.router().endpoints().size() > tries.tried().size();
    if (!hold) {
      request.dropHead();
    }
    response.begin(hold);
    if (upgrade && status == 101) {
      return; // the tunnel starts once the head is out (body())
    }
    if (response.framing() == ResponseHead.Framing.NONE) {
      responseEnded();
    }
  }

  private void body(ByteBuf buf) {
    if (upgrade && status == 101) {
      response.flushHead();
      client.tunnel(this, buf);
      return;
    }
    if (finished) {
      buf.release();
      return;
    }
    ResponseRelay.BodyRead read = response.body(buf);
    if (read == ResponseRelay.BodyRead.ENDED) {
      responseEnded();
    } else if (read == ResponseRelay.BodyRead.MALFORMED) {
      memberBroke("member " + front.member().address() + " sent a malformed chunked body");
    }
  }

  /** The client's body is complete: the answer kept back meanwhile goes out. */
  private void releaseDeferred() {
    if (out.releaseDeferred()) {
      ended();
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
      if (!tries.shouldRetry(Tries.Outcome.UNAVAILABLE_ANSWER)) {
        sendHeld(); // the budget is spent: the member's answer goes out as it came
        return;
      }
      fw.observer.retry(pool.name(), "status_" + status);
      response.reset();
      // the held answer goes out if no other member can take the request
      sendTryAgain();
      return;
    }
    request.releaseConnection();
    cancelTimer();
    if (out.completeNow()) {
      client.flush();
      ended();
    }
  }

  /** The answer went out whole: the client connection goes on with its next request. */
  private void ended() {
    finish(status);
    client.responseDone(this, response.closeClient());
  }

  private void sendTryAgain() {
    if (!request.headKept()) {
      sendHeld();
      return;
    }
    sendTry();
  }

  private void sendHeld() {
    if (!response.sendHeld()) {
      answer(failureStatus, failureMessage);
      return;
    }
    cancelTimer();
    ended();
  }

  @Override
  public void memberClosed() {
    boolean had = request.connectionClosed();
    if (finished || !had) {
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
      finish(status);
      client.brokenResponse();
      return;
    }
    Endpoint e = front.failed("reset");
    failureStatus = 502;
    failureMessage = aboutMember(e, "closed the connection");
    if (response.stopHolding()) {
      sendHeld();
      return;
    }
    response.dropPartialHead();
    tryLost(request.retryable(), Tries.Outcome.RESET_BEFORE_RESPONSE, "reset");
  }

  /**
   * The try in front is gone without an answer (the failure is set): the oldest hedge takes its
   * place, another try goes out when the request can be sent again, else the client gets the
   * failure.
   */
  private void tryLost(boolean retryable, Tries.Outcome outcome, String label) {
    if (hedgesInFlight()) {
      hedges.frontIsHedge();
    } else if (retryable && tries.shouldRetry(outcome)) {
      response.reset();
      fw.observer.retry(pool.name(), label);
      sendTry();
    } else {
      answer(failureStatus, failureMessage);
    }
  }

  private void memberBroke(String why) {
    giveUp("reset", 502, why);
  }

  /**
   * The try in front failed for good (a broken answer, a timeout): counted against its member; the
   * client gets {@code status} when no answer started, else its connection is broken.
   */
  private void giveUp(String outcome, int status, String message) {
    if (front.member() != null) {
      front.failed(outcome);
    }
    request.dropConnection();
    if (response.started()) {
      finish(this.status);
      client.brokenResponse();
    } else {
      answer(status, message);
    }
  }

  // ---- timeouts ------------------------------------------------------------------------------

  private void armTimer() {
    timer.arm();
  }

  private void due(Deadlines.Due due) {
    switch (due) {
      case REQUEST -> requestTimedOut();
      case TRY -> tryTimedOut(fw.clock.getAsLong());
      case IDLE -> idleTimedOut();
      case HEDGE -> hedges.send(this, client.eventLoop(), fw.clock.getAsLong());
      case NONE -> {}
    }
  }

  private void requestTimedOut() {
    long ms = pool.requests().requestNanos() / 1_000_000L;
    giveUp(
        "timeout",
        504,
        "pool " + pool.name() + " did not answer within its request timeout of " + ms + " ms");
  }

  /** The try in front had no answer's head within the per-try timeout. */
  private void tryTimedOut(long now) {
    long ms = pool.requests().perTryNanos() / 1_000_000L;
    Endpoint e;
    if (front.member() == null) {
      // A hedge is in front (the first try is gone already): it is given up on.
      e = hedges.frontTimedOut(now);
    } else {
      e = front.failed("timeout");
      request.dropConnection();
      response.dropPartialHead();
    }
    failureStatus = 504;
    failureMessage = aboutMember(e, "did not answer within " + ms + " ms");
    tryLost(request.retryable(), Tries.Outcome.TRY_TIMEOUT, "timeout");
  }

  private void idleTimedOut() {
    Endpoint e = front.member();
    if (e != null) { // with only hedges out, the per-try timeout covers them
      giveUp("timeout", 504, aboutMember(e, "did not answer in time"));
    }
  }

  private void cancelTimer() {
    timer.stop();
  }

  // ---- hedges --------------------------------------------------------------------------------

  /** The head a hedge sends: the same bytes as the first try's. */
  ByteBuf headForHedge() {
    return request.headForHedge();
  }

  private boolean hedgesInFlight() {
    return hedges != null && hedges.any();
  }

  /** A hedge has a complete answer's head first: the exchange goes on with it. */
  void hedgeAnswered(HedgeTry h) {
    hedges.remove(h);
    if (finished || response.headDone()) {
      hedges.cancel(h);
      return;
    }
    if (front.member() != null) {
      front.lostToHedge();
      request.dropConnection();
      response.dropPartialHead();
    }
    fw.observer.hedge(pool.name(), "won");
    front.adopt(h.member, h.sentAt);
    request.adopt(h.adopt(this));
    memberBytes(h.takeReceived());
  }

  /** A hedge's connection failed or broke before any answer. */
  void hedgeFailed(HedgeTry h, Tries.Outcome outcome, String label) {
    if (!hedges.failed(h, label)) {
      return;
    }
    if (finished || front.member() != null || response.headDone()) {
      return;
    }
    if (hedgesInFlight()) {
      hedges.frontIsHedge();
      return;
    }
    // It was the last try out.
    failureStatus = 502;
    failureMessage = aboutMember(h.member, "failed");
    tryLost(true, outcome, label);
  }

  private void cancelHedges(String outcome) {
    if (hedges != null) {
      hedges.cancelAll(outcome);
    }
  }

  // ---- the in-flight limit ----------------------------------------------------------------------

  private boolean waitForSlot() {
    queueSlot = new QueueSlot(fw, pool, client.eventLoop(), this);
    return queueSlot.enter();
  }

  @Override
  public boolean gone() {
    return finished;
  }

  @Override
  public Tries tries() {
    return tries;
  }

  @Override
  public void admitted(Endpoint e) {
    queueSlot = null;
    if (e == null) {
      noMemberForTry();
    } else {
      startTry(e);
    }
  }

  @Override
  public void queueTimedOut(String message) {
    if (!finished) {
      answer(503, message);
    }
  }

  // ---- endings -------------------------------------------------------------------------------

  private void answer(int status, String message) {
    this.status = status;
    cancelTimer();
    request.dropConnection();
    finish(status);
    boolean close = response.closeClient() || !request.ended();
    client.answer(status, message, pool.name(), close);
    client.responseDone(this, close);
  }

  private void finish(int status) {
    if (finished) {
      return;
    }
    finished = true;
    cancelTimer();
    cancelHedges("lost");
    if (queueSlot != null) {
      queueSlot.leave();
    }
    request.release();
    response.release();
    out.release();
    if (tries.budgetDenials() > 0) {
      fw.observer.budgetExhausted(pool.name());
    }
    fw.observer.response(pool.name(), status, fw.clock.getAsLong() - startNanos);
  }

  boolean finished() {
    return finished;
  }

  /** Hands the member connection over to a tunnel (101 Switching Protocols). */
  H1Upstream takeUpstreamForTunnel() {
    H1Upstream u = request.takeConnection();
    cancelTimer();
    finish(101);
    return u;
  }

  Endpoint member() {
    return front.member();
  }

  /** The start of what the client is told about a member's failure. */
  private String aboutMember(Endpoint e, String what) {
    return "member " + e.address() + " of pool " + pool.name() + " " + what;
  }

  static ByteBuf empty() {
    return Unpooled.EMPTY_BUFFER;
  }
}
