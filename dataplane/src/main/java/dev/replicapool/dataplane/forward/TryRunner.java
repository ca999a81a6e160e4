package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
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
 * DeadlineTimer}), and decides what a try that ends without a usable answer means: a hedge takes
 * its place, another try goes out, a held answer goes out after all, or the client gets the
 * failure.
 *
 * <p>{@link Http1Exchange} owns it: it starts it, hands it every answer's head and a member that
 * closed before answering, and ends the request when this says so ({@code answer}, {@code ended},
 * {@code giveUp}). Event loop only.
 */
final class TryRunner implements QueueSlot.Owner {
  private final Http1Exchange exchange;
  private final Http1Connection client;
  private final Forwarding fw;
  private final PoolRuntime pool;
  private final Tries tries;
  private final Deadlines deadlines;
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
    TryTimeouts timeouts = new TryTimeouts(exchange, this, fw, pool, front, request, response);
    this.timer = new DeadlineTimer(client.eventLoop(), fw.clock, deadlines, timeouts);
  }

  /**
   * Hedges follow the first try when the pool's hedging covers the request. A request with a body
   * is not hedged: its body streams to one member at a time.
   */
  void hedgeIfCovered() {
    if (request.bodyless() && tries.hedgeable()) {
      RequestPolicy rp = pool.requests();
      hedges = new Hedges(fw, pool, tries, deadlines, this, exchange, front, request, response);
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
    deadlines.trySent(front.start(e));
    timer.arm();
    MemberLinks.open(fw, client.eventLoop(), pool, e, new PrimaryConnect(e));
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

  /** The connection of the try in front; one that comes after its try was given up is not used. */
  private final class PrimaryConnect implements MemberConnections.ConnectListener {
    private final Endpoint member;

    PrimaryConnect(Endpoint member) {
      this.member = member;
    }

    @Override
    public void connected(H1Upstream c) {
      if (exchange.finished() || front.member() != member || request.hasConnection()) {
        c.release(); // given up meanwhile: nothing was written
        return;
      }
      deadlines.activity(fw.clock.getAsLong());
      request.connected(c, exchange, front.traceparent());
    }

    @Override
    public void failed(Throwable cause) {
      if (!exchange.finished() && front.member() == member && !request.hasConnection()) {
        connectFailed();
      }
    }
  }

  private void connectFailed() {
    Endpoint e = front.failed("connect_failure");
    failureStatus = 502;
    failureMessage = front.about(e, "is unreachable");
    if (hedgesInFlight()) {
      hedges.frontIsHedge();
    } else if (tries.shouldRetry(Tries.Outcome.CONNECT_FAILURE)) {
      front.observer().retry(pool.name(), "connect_failure");
      sendTry();
    } else if (response.hasHeld()) {
      sendHeld();
    } else {
      exchange.answer(502, failureMessage);
    }
  }

  // ---- what the exchange hands over ----------------------------------------------------------

  /**
   * The try in front has its answer's head ({@code status}) at {@code now}: the other tries lose.
   * Returns whether the answer is held, because a retry elsewhere may replace it.
   */
  boolean answerHead(int status) {
    long now = fw.clock.getAsLong();
    deadlines.headReceived(now);
    cancelHedges("lost");
    front.answered(now, status);
    return tries.wouldRetryAnswer(status)
        && pool.router().endpoints().size() > tries.tried().size();
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
    Endpoint e = front.failed("reset");
    failureStatus = 502;
    failureMessage = front.about(e, "closed the connection");
    if (response.stopHolding()) {
      sendHeld();
      return;
    }
    response.dropPartialHead();
    if (request.closedUnprocessed()) {
      tryLost(request.retryable(), Tries.Outcome.UNPROCESSED, "unprocessed");
    } else {
      tryLost(request.retryable(), Tries.Outcome.RESET_BEFORE_RESPONSE, "reset");
    }
  }

  /**
   * The try in front is gone without an answer, with {@code status} and {@code message} for the
   * client if no other try answers: the oldest hedge takes its place, another try goes out when the
   * request can be sent again ({@code retryable}), else the client gets them.
   */
  void lost(int status, String message, boolean retryable, Tries.Outcome outcome, String label) {
    failureStatus = status;
    failureMessage = message;
    tryLost(retryable, outcome, label);
  }

  private void tryLost(boolean retryable, Tries.Outcome outcome, String label) {
    if (hedgesInFlight()) {
      hedges.frontIsHedge();
    } else if (retryable && tries.shouldRetry(outcome)) {
      response.reset();
      front.observer().retry(pool.name(), label);
      sendTry();
    } else {
      exchange.answer(failureStatus, failureMessage);
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

  /** The oldest hedge, in front, had no answer's head in time; returns its member. */
  Endpoint hedgeInFrontTimedOut(long now) {
    return hedges.frontTimedOut(now);
  }

  /** A deadline may have moved earlier: the timer looks no later than it. */
  void armTimer() {
    timer.arm();
  }

  /** The answer is complete or the request ends: no timeout applies any more. */
  void stopTimer() {
    timer.stop();
  }

  private boolean hedgesInFlight() {
    return hedges != null && hedges.any();
  }

  private void cancelHedges(String outcome) {
    if (hedges != null) {
      hedges.cancelAll(outcome);
    }
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
    cancelHedges("lost");
    if (queueSlot != null) {
      queueSlot.leave();
    }
    if (tries.budgetDenials() > 0) {
      front.observer().budgetExhausted(pool.name());
    }
  }
}
