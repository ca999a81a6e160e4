package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.exchange.TryCourse;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.routing.Endpoint;
import io.netty.util.concurrent.EventExecutor;

/**
 * How the tries of one request go out, the same for an HTTP/1.x exchange ({@link TryRunner}) and an
 * HTTP/2 stream ({@link H2StreamForwarder}): the first waits in the pool's queue behind others
 * ({@link QueueSlot}), each picks its member ({@link Tries}) or waits for a free slot, a request no
 * member is left for gets 503 (none tried), the last try's failure, or a member's answer held for a
 * retry that had nowhere to go; one {@link DeadlineTimer} watches its {@link Deadlines} and hands
 * each one that falls due to the exchange, and its end stops the timer, loses the hedges still out,
 * leaves the queue and counts a retry the budget denied. What a lost try means (wait for another,
 * retry, the last failure, a broken answer) is its {@link TryCourse}'s, acted on here ({@link
 * #lost}); the bytes of a try and the client's answer are the protocol's ({@link Exchange}).
 *
 * <p>The request's life ends here too, once, for both protocols ({@link #end}): whichever way it
 * ends (answered, answered by the proxy, broken, given up by its client), the timer stops, the
 * tries still out lose, the queue is left, the protocol lets go of what it kept, and then its
 * {@link RequestRecord} ends with the status the client got, so the outcome is reported in one
 * place.
 *
 * <p>Event loop only.
 */
final class TryLoop<T extends TryCourse.Attempt> implements QueueSlot.Owner, DeadlineTimer.Owner {
  /** The protocol's side of the request. */
  interface Exchange<T> {
    /** A try to {@code e}, sent at {@code now}, before it is out. */
    T newTry(Endpoint e, long now);

    /** Try {@code t} is out (its course knows): it connects to its member. */
    void open(T t);

    /**
     * Another try is to follow a lost one: the request goes again from its start (its kept head and
     * body; the next answer's head is read afresh). Called before every retry, so that no protocol
     * sends a retry with less than the client sent.
     */
    void rewind();

    /**
     * The proxy answers the client itself, {@code status} and {@code message}: 503 when no member
     * was tried or the queue turned the request away, else the last try's failure.
     */
    void localAnswer(int status, String message);

    /**
     * The member's answer held from an earlier try, for a retry that could replace it, goes to the
     * client as it came. Returns false when none is held. When it goes is the loop's to decide.
     */
    boolean sendHeldAnswer();

    /**
     * The try whose answer was going to the client was lost ({@code why}): the answer cannot be
     * completed nor given anew, so the client's answer breaks.
     */
    void answerBroke(String why);

    // What its deadlines say is due (Deadlines.Due), one call each.

    /** The request's own timeout (or a gRPC call's shorter deadline) passed: it ends now. */
    void requestTimedOut();

    /**
     * Try {@code t} (the one in front, else the oldest hedge) had no answer's head within the
     * per-try timeout; {@code why} is already the request's failure should no other try answer.
     */
    void tryTimedOut(T t, String why);

    /** The member went silent mid-exchange for the idle timeout. */
    void memberSilent();

    /** The client took none of the answer for the idle timeout. */
    void clientStalled();

    /** The client sent none of the rest of its request for the idle timeout. */
    void clientSilent();

    /** A hedge is due at {@code now}. */
    void hedgeDue(long now);

    /**
     * The request ended ({@link #end}): the protocol lets go of what it kept (the request's kept
     * bytes, a held answer) and notes on the record what it wrote; the record ends right after.
     */
    void release();
  }

  /**
   * The proxy's own answer to the client, written once the request ended and every part let go (so
   * that what writing it sets off finds the request ended), before its record ends.
   */
  interface LastAnswer {
    /** Writes the answer; returns its length in bytes. */
    int write();
  }

  /** Where the request's life stands. */
  enum Life {
    /** Waiting for a slot, trying, or answering. */
    OPEN,
    /** Ended once ({@link #end}): nothing it held is held any more, its record is written. */
    ENDED
  }

  final Tries tries;
  final Deadlines deadlines;
  final TryCourse<T> course;
  final DeadlineTimer timer;
  private final Forwarding fw;
  private final PoolRuntime pool;
  private final EventExecutor loop;
  private final ProxyObserver observer;
  private final RequestRecord record;
  private final Exchange<T> exchange;
  private Life life = Life.OPEN;

  /** Its place in the pool's queue while every member is full; null otherwise. */
  private QueueSlot queueSlot;

  private int failureStatus = 502;
  private String failureMessage;

  TryLoop(
      Forwarding fw,
      PoolRuntime pool,
      EventExecutor loop,
      Tries tries,
      Deadlines deadlines,
      TryCourse.Accounts<T> accounts,
      RequestRecord record,
      Exchange<T> exchange) {
    this.fw = fw;
    this.pool = pool;
    this.loop = loop;
    this.tries = tries;
    this.deadlines = deadlines;
    this.record = record;
    this.observer = record.observer();
    this.exchange = exchange;
    this.course = new TryCourse<>(tries, deadlines, pool.router(), accounts);
    this.timer = new DeadlineTimer(loop, fw.clock, deadlines, this);
  }

  /** What the timer found due goes to the exchange's side that knows what to do about it. */
  @Override
  public void due(Deadlines.Due due) {
    switch (due) {
      case REQUEST -> exchange.requestTimedOut();
      case TRY -> tryTimedOut();
      case IDLE -> exchange.memberSilent();
      case CLIENT_STALLED -> exchange.clientStalled();
      case CLIENT_SILENT -> exchange.clientSilent();
      case HEDGE -> exchange.hedgeDue(fw.clock.getAsLong());
      case NONE -> {}
    }
  }

  /** The try the per-try timeout watches is its member's failure (504); the exchange goes on. */
  private void tryTimedOut() {
    T t = course.watched();
    if (t == null) {
      return;
    }
    long ms = pool.requests().perTryNanos() / 1_000_000L;
    String why = pool.aboutMember(t.member(), "did not answer within " + ms + " ms");
    failed(504, why);
    exchange.tryTimedOut(t, why);
  }

  /** The first try goes out, or the request queues behind those already waiting. */
  void start() {
    timer.arm(); // the request's own deadline runs while it waits in the queue too
    if (QueueSlot.othersWait(pool)) {
      waitForSlot();
    } else {
      sendTry();
    }
  }

  /** The next try goes out, the request waits for a slot, or no member is left for it. */
  void sendTry() {
    Endpoint e = tries.next(pool.router());
    if (e != null) {
      startTry(e);
    } else if (QueueSlot.mayWait(tries)) {
      waitForSlot();
    } else {
      noMemberLeft();
    }
  }

  /**
   * No member is left for the request: a member's answer held for a retry is the best the client
   * can get, else the proxy answers 503 (none tried) or the last try's failure.
   */
  private void noMemberLeft() {
    if (exchange.sendHeldAnswer()) {
      return;
    }
    if (tries.tried().isEmpty() || failureMessage == null) {
      exchange.localAnswer(503, "no routable member in pool " + pool.name());
    } else {
      exchange.localAnswer(failureStatus, failureMessage);
    }
  }

  /**
   * The course decided another try: the exchange rewinds the request, the retry is counted under
   * {@code label}, then it goes out.
   */
  void retry(String label) {
    exchange.rewind();
    observer.retry(pool.name(), label);
    sendTry();
  }

  /**
   * Try {@code t} is lost without its answer ({@code outcome}; {@code label} for its attempt's
   * metric, {@code retryLabel} for a retry's): its course decides what follows, here for both
   * protocols. {@code replayable}: the request can be sent again as the client sent it (its head
   * and body kept whole).
   */
  void lost(T t, String label, Tries.Outcome outcome, boolean replayable, String retryLabel) {
    switch (course.lost(t, label, outcome, replayable, fw.clock.getAsLong())) {
      case NOT_OUT, OTHER_TRY_OUT -> {} // another try may still answer
      case RETRY -> retry(retryLabel);
      case LAST -> lastTryLost(outcome);
      case MID_ANSWER -> exchange.answerBroke(failureMessage);
    }
  }

  /**
   * The last try the request gets was lost before any answer went out: the client gets the failure
   * noted; but a retry that never reached a member leaves the answer held before it (a member's own
   * 5xx) as the best the client can get.
   */
  private void lastTryLost(Tries.Outcome outcome) {
    if (outcome == Tries.Outcome.CONNECT_FAILURE && exchange.sendHeldAnswer()) {
      return;
    }
    exchange.localAnswer(failureStatus, failureMessage);
  }

  /** A try failed: if no other answers, the client gets {@code status} and {@code message}. */
  void failed(int status, String message) {
    failureStatus = status;
    failureMessage = message;
  }

  int failureStatus() {
    return failureStatus;
  }

  String failureMessage() {
    return failureMessage;
  }

  @Override
  public void startTry(Endpoint e) {
    T t = exchange.newTry(e, fw.clock.getAsLong());
    course.sent(t);
    timer.arm();
    exchange.open(t);
  }

  @Override
  public void localAnswer(int status, String message) {
    exchange.localAnswer(status, message);
  }

  private void waitForSlot() {
    queueSlot = new QueueSlot(fw, pool, loop, tries, this, observer);
    queueSlot.enter();
  }

  /**
   * Ends the request once with {@code status}, the status its client got: the timer stops, the
   * tries still out lose, its queue place is given up, a retry the budget denied is counted, the
   * protocol lets go of what it kept ({@link Exchange#release}), and its record ends. Returns false
   * (and does nothing) when it had ended before.
   */
  boolean end(int status) {
    return end(status, null);
  }

  /**
   * As {@link #end(int)}, with the proxy's own answer written ({@code answer}) between the protocol
   * letting go and the record's end, its length counted on the record.
   */
  boolean end(int status, LastAnswer answer) {
    if (life == Life.ENDED) {
      return false;
    }
    life = Life.ENDED;
    long now = fw.clock.getAsLong();
    timer.stop();
    course.finish(now);
    if (queueSlot != null) {
      queueSlot.leave();
    }
    if (tries.budgetDenials() > 0) {
      observer.budgetExhausted(pool.name());
    }
    exchange.release();
    if (answer != null) {
      record.bytesOut(answer.write());
    }
    record.end(status, fw.clock.getAsLong());
    return true;
  }

  /** Whether the request ended ({@link #end}). */
  boolean ended() {
    return life == Life.ENDED;
  }
}
