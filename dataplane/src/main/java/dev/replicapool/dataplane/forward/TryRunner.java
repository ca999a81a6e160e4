package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.accesslog.AccessFlag;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.exchange.TryCourse;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.RequestPolicy;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.upstream.H1Upstream;
import dev.replicapool.dataplane.upstream.MemberConnections;
import io.netty.channel.EventLoop;

/**
 * The tries of one HTTP/1.x exchange: how they go out (member, queue, timer, end) is its {@link
 * TryLoop}'s, as for an HTTP/2 stream; this gets each one a connection ({@link MemberLinks}), sends
 * hedges ({@link Hedges}), and carries out what its {@link TryCourse} decides a try that ends
 * without a usable answer means: a hedge takes its place, another try goes out, or the client gets
 * the failure (or a held answer, after all).
 *
 * <p>{@link Http1Exchange} owns it: it starts it, hands it every answer's head and a member that
 * closed before answering, and ends the request when this says so ({@code answer}, {@code ended},
 * {@code giveUp}). Event loop only.
 */
final class TryRunner implements TryLoop.Exchange<H1Try>, Hedges.Failures {
  /**
   * The request as its tries see it ({@link Http1Exchange}): what reads the member's bytes, and the
   * ends a try's course leads to.
   */
  interface ClientSide extends Hedges.Request {
    /** The proxy answers the client itself ({@code status}, {@code message}). */
    void answer(int status, String message);

    /**
     * The try in front failed for good ({@code outcome}): the client gets {@code status} when no
     * answer started, else its connection is broken.
     */
    void giveUp(String outcome, int status, String message);

    /** The answer under way breaks off: the client's connection is broken. */
    void breakAnswer();

    /** The answer went out whole. */
    void ended();

    /** Notes {@code f} on the access-log line, if the request is logged. */
    void flag(AccessFlag f);

    /** The client took none of the answer for the idle timeout. */
    void clientStalled();

    /** The client sent none of the rest of its request for the idle timeout. */
    void clientSilent();

    /**
     * The request ended: the exchange lets go of what it kept ({@link TryLoop.Exchange#release}).
     */
    void release();
  }

  private final ClientSide exchange;

  /** The client connection's loop: its member connections are opened on it. */
  private final EventLoop eventLoop;

  private final Forwarding fw;
  private final PoolRuntime pool;
  private final Tries tries;
  private final Deadlines deadlines;
  private final TryLoop<H1Try> loop;
  private final TryCourse<H1Try> course;
  private final FrontTry front;
  private final RequestRelay request;
  private final ResponseRelay response;

  /** Null when the request is not hedged. */
  private Hedges hedges;

  TryRunner(
      ClientSide exchange,
      EventLoop eventLoop,
      Forwarding fw,
      PoolRuntime pool,
      Tries tries,
      Deadlines deadlines,
      FrontTry front,
      RequestRecord record,
      RequestRelay request,
      ResponseRelay response) {
    this.exchange = exchange;
    this.eventLoop = eventLoop;
    this.fw = fw;
    this.pool = pool;
    this.tries = tries;
    this.deadlines = deadlines;
    this.front = front;
    this.request = request;
    this.response = response;
    this.loop = new TryLoop<>(fw, pool, eventLoop, tries, deadlines, front, record, this);
    this.course = loop.course;
  }

  /**
   * Hedges follow the first try when the pool's hedging covers the request. A request with a body
   * is hedged once all of it is in and kept (its delay counts from the body's end, {@link
   * Deadlines}); a body past what is kept is never sent twice, so it is not hedged.
   */
  void hedgeIfCovered() {
    if (tries.hedgeable()) {
      RequestPolicy rp = pool.requests();
      hedges = new Hedges(fw, pool, course, this, exchange, front, request, response);
      deadlines.hedging(rp.hedging().maxHedges(), rp.hedging().delayNanos(rp.latencies()));
    }
  }

  void start() {
    loop.start();
  }

  @Override
  public H1Try newTry(Endpoint e, long now) {
    PrimaryTry t = new PrimaryTry(e, now);
    front.start(t);
    return t;
  }

  /** A retry reads its answer's head afresh; the request relay sends the kept head and body. */
  @Override
  public void rewind() {
    response.reset();
  }

  @Override
  public void open(H1Try t) {
    MemberLinks.open(fw, eventLoop, pool, t.member(), (PrimaryTry) t);
  }

  /**
   * A primary try (the first, or a retry; not a hedge), until its member's connection is the
   * request's ({@link RequestRelay}); a connection that comes after its try was given up is not
   * used.
   */
  private final class PrimaryTry extends H1Try implements MemberConnections.ConnectListener {
    PrimaryTry(Endpoint member, long sentAt) {
      super(member, sentAt);
    }

    @Override
    void cancel() {} // its connection, once there, is the request's to drop

    @Override
    public void connected(H1Upstream c) {
      if (loop.ended() || course.front() != this || request.hasConnection()) {
        c.release(); // given up meanwhile: nothing was written
        return;
      }
      deadlines.activity(fw.clock.getAsLong());
      request.connected(c, exchange, front.traceparent());
    }

    @Override
    public void failed(Throwable cause) {
      if (!loop.ended() && course.front() == this && !request.hasConnection()) {
        loop.failed(502, pool.aboutMember(member(), "is unreachable"));
        loop.lost(this, "connect_failure", Tries.Outcome.CONNECT_FAILURE, true, "connect_failure");
      }
    }
  }

  // ---- what the exchange hands over ----------------------------------------------------------

  /**
   * The try in front has its answer's head ({@code status}) at {@code now}: the other tries lose.
   * Returns whether the answer is held, because a retry elsewhere may replace it.
   */
  boolean answerHead(int status) {
    long now = fw.clock.getAsLong();
    H1Try t = course.front();
    // The course's rule, as for HTTP/2: held only while it is the one try out. Whether the
    // request is kept whole is known at the answer's end (heldAnswerEnded), not yet.
    boolean hold = course.mayReplace(t, status, true);
    course.answered(t, now); // the try in front answered: the hedges out lose
    front.answered(now, status);
    return hold;
  }

  /** A held answer ended: another member gets the request if the budget allows, else it goes. */
  void heldAnswerEnded(int status) {
    if (!tries.shouldRetry(Tries.Outcome.UNAVAILABLE_ANSWER)) {
      sendHeld(); // the budget is spent: the member's answer goes out as it came
      return;
    }
    // the held answer goes out if no other member can take the request (no retry is counted)
    if (!request.headKept()) {
      sendHeld();
      return;
    }
    loop.retry("status_" + status);
  }

  /** The member closed before any of its answer went to the client. */
  void closedBeforeAnswer() {
    H1Try t = course.front();
    loop.failed(
        502, pool.aboutMember(t == null ? front.member() : t.member(), "closed the connection"));
    if (response.stopHolding()) {
      front.failed("reset"); // its held answer was cut: it goes out as far as it came
      sendHeld();
      return;
    }
    response.dropPartialHead();
    if (request.closedUnprocessed()) {
      loop.lost(t, "reset", Tries.Outcome.UNPROCESSED, request.retryable(), "unprocessed");
    } else {
      loop.lost(t, "reset", Tries.Outcome.RESET_BEFORE_RESPONSE, request.retryable(), "reset");
    }
  }

  // ---- what falls due (its TryLoop's timer says) ---------------------------------------------

  @Override
  public void requestTimedOut() {
    long ms = pool.requests().requestNanos() / 1_000_000L;
    exchange.flag(AccessFlag.DT);
    exchange.giveUp(
        "timeout",
        504,
        "pool " + pool.name() + " did not answer within its request timeout of " + ms + " ms");
  }

  @Override
  public void memberSilent() {
    Endpoint e = front.member();
    if (e != null) { // with only hedges out, the per-try timeout covers them
      exchange.giveUp("timeout", 504, pool.aboutMember(e, "did not answer in time"));
    }
  }

  @Override
  public void clientStalled() {
    exchange.clientStalled();
  }

  @Override
  public void clientSilent() {
    exchange.clientSilent();
  }

  @Override
  public void tryTimedOut(H1Try t, String why) {
    if (t == course.front()) {
      request.dropConnection();
      response.dropPartialHead();
    }
    loop.lost(t, "timeout", Tries.Outcome.TRY_TIMEOUT, request.retryable(), "timeout");
  }

  /** A hedge failed ({@code outcome}, {@code label}) before any answer. */
  @Override
  public void hedgeFailed(HedgeTry h, Tries.Outcome outcome, String label) {
    loop.failed(502, pool.aboutMember(h.member(), "failed"));
    loop.lost(h, label, outcome, true, label); // a hedged request is kept whole: it can go again
  }

  /**
   * Not reached today: an HTTP/1 try whose answer started is not lost through its course (a per-try
   * timeout and a hedge's failure come before any answer; a member that breaks mid-answer is {@link
   * Http1Exchange#memberClosed}'s), but should one be, its client's answer breaks.
   */
  @Override
  public void answerBroke(String why) {
    exchange.breakAnswer();
  }

  @Override
  public boolean sendHeldAnswer() {
    if (!response.sendHeld()) {
      return false;
    }
    loop.timer.stop();
    exchange.ended();
    return true;
  }

  /** The held answer goes now; with none, the failure noted. */
  private void sendHeld() {
    if (!sendHeldAnswer()) {
      exchange.answer(loop.failureStatus(), loop.failureMessage());
    }
  }

  @Override
  public void hedgeDue(long now) {
    hedges.send(eventLoop, now);
  }

  /** A deadline may have moved earlier: the timer looks no later than it. */
  void armTimer() {
    loop.timer.arm();
  }

  /** The answer is complete or the request ends: no timeout applies any more. */
  void stopTimer() {
    loop.timer.stop();
  }

  @Override
  public void localAnswer(int status, String message) {
    exchange.answer(status, message);
  }

  @Override
  public void release() {
    exchange.release();
  }

  /** Ends the request once with {@code status} ({@link TryLoop#end(int)}); false if it had. */
  boolean end(int status) {
    return loop.end(status);
  }

  /** Ends it with the proxy's own answer ({@link TryLoop#end(int, TryLoop.LastAnswer)}). */
  boolean end(int status, TryLoop.LastAnswer answer) {
    return loop.end(status, answer);
  }

  /** Whether the request ended. */
  boolean ended() {
    return loop.ended();
  }
}
