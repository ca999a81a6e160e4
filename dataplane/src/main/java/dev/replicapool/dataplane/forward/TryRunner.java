package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.exchange.TryCourse;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.RequestPolicy;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.upstream.H1Upstream;
import dev.replicapool.dataplane.upstream.MemberConnections;

/**
 * The tries of one HTTP/1.x exchange: picks each one's member ({@link Tries}), gets it a connection
 * ({@link MemberLinks}), waits in the pool's queue ({@link QueueSlot}) when every member is full,
 * sends hedges ({@link Hedges}), watches the timeouts ({@link Deadlines}, one {@link
 * DeadlineTimer}), and carries out what its {@link TryCourse} decides a try that ends without a
 * usable answer means: a hedge takes its place, another try goes out, or the client gets the
 * failure (or a held answer, after all).
 *
 * <p>{@link Http1Exchange} owns it: it starts it, hands it every answer's head and a member that
 * closed before answering, and ends the request when this says so ({@code answer}, {@code ended},
 * {@code giveUp}). Event loop only. Just over 300 lines with its {@code PrimaryTry}, which reads
 * the runner's state at each connect; the next step moves the request's life into one exchange.
 */
final class TryRunner implements QueueSlot.Owner {
  private final Http1Exchange exchange;
  private final Http1Connection client;
  private final Forwarding fw;
  private final PoolRuntime pool;
  private final Tries tries;
  private final Deadlines deadlines;
  private final TryCourse<H1Try> course;
  private final DeadlineTimer timer;
  private final FrontTry front;
  private final RequestRelay request;
  private final ResponseRelay response;

  /** Null when the request is not hedged. */
  private Hedges hedges;

  /** Its place in the pool's queue while every member is full; null otherwise. */
  private QueueSlot queueSlot;

  private String failureMessage;
  private int failureStatus = 502;

  TryRunner(
      Http1Exchange exchange,
      Http1Connection client,
      Forwarding fw,
      PoolRuntime pool,
      Tries tries,
      Deadlines deadlines,
      FrontTry front,
      RequestRelay request,
      ResponseRelay response) {
    this.exchange = exchange;
    this.client = client;
    this.fw = fw;
    this.pool = pool;
    this.tries = tries;
    this.deadlines = deadlines;
    this.front = front;
    this.request = request;
    this.response = response;
    this.course = new TryCourse<>(tries, deadlines, pool.router(), front);
    TryTimeouts timeouts = new TryTimeouts(exchange, this, fw, pool, front);
    this.timer = new DeadlineTimer(client.eventLoop(), fw.clock, deadlines, timeouts);
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
    timer.arm(); // the request's own deadline runs while it waits in the queue too
    if (QueueSlot.othersWait(pool)) {
      waitForSlot();
    } else {
      sendTry();
    }
  }

  private void sendTry() {
    Endpoint e = tries.next(pool.router());
    if (e == null) {
      noMemberForTry();
      return;
    }
    startTry(e);
  }

  @Override
  public void startTry(Endpoint e) {
    PrimaryTry t = new PrimaryTry(e, fw.clock.getAsLong());
    front.start(t);
    course.sent(t);
    timer.arm();
    MemberLinks.open(fw, client.eventLoop(), pool, e, t);
  }

  private void noMemberForTry() {
    if (QueueSlot.mayWait(tries)) {
      waitForSlot();
    } else if (response.hasHeld()) {
      sendHeld();
    } else if (tries.tried().isEmpty()) {
      exchange.answer(503, "no routable member in pool " + pool.name());
    } else {
      exchange.answer(failureStatus, failureMessage);
    }
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
      if (exchange.finished() || course.front() != this || request.hasConnection()) {
        c.release(); // given up meanwhile: nothing was written
        return;
      }
      deadlines.activity(fw.clock.getAsLong());
      request.connected(c, exchange, front.traceparent());
    }

    @Override
    public void failed(Throwable cause) {
      if (!exchange.finished() && course.front() == this && !request.hasConnection()) {
        failureStatus = 502;
        failureMessage = pool.aboutMember(member(), "is unreachable");
        lost(this, "connect_failure", Tries.Outcome.CONNECT_FAILURE, true, "connect_failure");
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
    course.answered(course.front(), now); // the try in front answered: the hedges out lose
    front.answered(now, status);
    // the same test as TryCourse.answerReplaced: a member not tried yet may take the request now
    return tries.wouldRetryAnswer(status) && pool.router().routableCount() > tries.tried().size();
  }

  /** A held answer ended: another member gets the request if the budget allows, else it goes. */
  void heldAnswerEnded(int status) {
    if (!tries.shouldRetry(Tries.Outcome.UNAVAILABLE_ANSWER)) {
      sendHeld(); // the budget is spent: the member's answer goes out as it came
      return;
    }
    front.observer().retry(pool.name(), "status_" + status);
    response.reset();
    // the held answer goes out if no other member can take the request
    if (!request.headKept()) {
      sendHeld();
      return;
    }
    sendTry();
  }

  /** The member closed before any of its answer went to the client. */
  void closedBeforeAnswer() {
    H1Try t = course.front();
    failureStatus = 502;
    failureMessage =
        pool.aboutMember(t == null ? front.member() : t.member(), "closed the connection");
    if (response.stopHolding()) {
      front.failed("reset"); // its held answer was cut: it goes out as far as it came
      sendHeld();
      return;
    }
    response.dropPartialHead();
    if (request.closedUnprocessed()) {
      lost(t, "reset", Tries.Outcome.UNPROCESSED, request.retryable(), "unprocessed");
    } else {
      lost(t, "reset", Tries.Outcome.RESET_BEFORE_RESPONSE, request.retryable(), "reset");
    }
  }

  /** The try in front, else the oldest hedge, had no answer's head within the per-try timeout. */
  void tryTimedOut() {
    H1Try t = course.watched();
    if (t == null) {
      return;
    }
    long ms = pool.requests().perTryNanos() / 1_000_000L;
    failureStatus = 504;
    failureMessage = pool.aboutMember(t.member(), "did not answer within " + ms + " ms");
    if (t == course.front()) {
      request.dropConnection();
      response.dropPartialHead();
    }
    lost(t, "timeout", Tries.Outcome.TRY_TIMEOUT, request.retryable(), "timeout");
  }

  /** A hedge failed ({@code outcome}, {@code label}) before any answer. */
  void hedgeFailed(HedgeTry h, Tries.Outcome outcome, String label) {
    failureStatus = 502;
    failureMessage = pool.aboutMember(h.member(), "failed");
    lost(h, label, outcome, true, label); // a hedged request is kept whole: it can go again
  }

  /**
   * Try {@code t} is lost without an answer ({@code label} for its attempt, {@code retryLabel} for
   * a retry's metric): what its course says follows; the failure noted before goes to the client
   * when it was the last try.
   */
  private void lost(
      H1Try t, String label, Tries.Outcome outcome, boolean replayable, String retryLabel) {
    switch (course.lost(t, label, outcome, replayable, fw.clock.getAsLong())) {
      case NOT_OUT, OTHER_TRY_OUT, MID_ANSWER -> {}
      case RETRY -> {
        response.reset();
        front.observer().retry(pool.name(), retryLabel);
        sendTry();
      }
      case LAST -> {
        if (outcome == Tries.Outcome.CONNECT_FAILURE && response.hasHeld()) {
          sendHeld();
        } else {
          exchange.answer(failureStatus, failureMessage);
        }
      }
    }
  }

  private void sendHeld() {
    if (!response.sendHeld()) {
      exchange.answer(failureStatus, failureMessage);
      return;
    }
    timer.stop();
    exchange.ended();
  }

  /** A hedge is due (the timer says). */
  void hedgeDue(long now) {
    hedges.send(client.eventLoop(), now);
  }

  /** A deadline may have moved earlier: the timer looks no later than it. */
  void armTimer() {
    timer.arm();
  }

  /** The answer is complete or the request ends: no timeout applies any more. */
  void stopTimer() {
    timer.stop();
  }

  // ---- the in-flight limit ----------------------------------------------------------------------

  private void waitForSlot() {
    queueSlot = new QueueSlot(fw, pool, client.eventLoop(), tries, this, front.observer());
    queueSlot.enter();
  }

  @Override
  public void localAnswer(int status, String message) {
    exchange.answer(status, message);
  }

  /** The request ended: the timer stops, hedges still out lose, its queue place is given up. */
  void finish() {
    timer.stop();
    course.finish(fw.clock.getAsLong()); // hedges still out lose
    if (queueSlot != null) {
      queueSlot.leave();
    }
    if (tries.budgetDenials() > 0) {
      front.observer().budgetExhausted(pool.name());
    }
  }
}
