package dev.replicapool.dataplane.exchange;

import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.PoolRouter;
import java.util.ArrayList;
import java.util.function.Function;

/**
 * The tries of one request that are out, whatever the client's or the member's protocol: the one in
 * front (whose answer the client is to get) and the hedges sent beside it, oldest first; and what
 * each event on them means for the request: a hedge due goes out or not, the first answer's head
 * wins and every other try loses, a try lost without an answer is replaced by the oldest hedge, by
 * a retry when the request may be sent again, or is the last one; a member's 502 or 503 is replaced
 * by a retry when the pool allows it. The HTTP/1.x exchange and the HTTP/2 stream both keep their
 * tries here, so the two follow one set of rules.
 *
 * <p>Plain Java on the request's event loop: no I/O, no clock of its own (times come with the
 * events). The bytes of a try (its connection, its stream) stay with the protocol's attempt object
 * {@code T}; what a try's end costs (its member's slot, the balancer, the metrics) is {@link
 * Accounts}'s.
 */
public final class TryCourse<T extends TryCourse.Attempt> {
  /** One try: to one member, sent at one time. */
  public interface Attempt {
    /** The member it goes to. */
    Endpoint member();

    /** When it was sent (nanoseconds of the data plane's clock). */
    long sentAt();
  }

  /** What the course's decisions cost outside it: the protocol's own accounts. */
  public interface Accounts<T> {
    /** A hedge is counted under {@code outcome}: sent, denied, won, failed, lost. */
    void hedge(String outcome);

    /**
     * Try {@code t} is over without carrying the answer ({@code end}, {@code label} for its
     * attempt's metric): its bytes are dropped, its member's slot freed, a failure counted against
     * the member when it {@link End#FAILED}. {@code inFront}: it was the try in front (not a
     * hedge).
     */
    void ended(T t, End end, boolean inFront, String label, long now);
  }

  /** How a try that does not carry the answer ends. */
  public enum End {
    /** Its member failed it: refused, reset, no answer in time. */
    FAILED,
    /** Another try answered first while it waited: its time so far is a latency sample. */
    SLOWER,
    /** Not needed any more: another try's answer went out, or the request ended. */
    CANCELLED
  }

  /** Where the request is in its life. */
  public enum Phase {
    /** No try is out: before the first, between a lost try and its retry, or in the queue. */
    WAITING,
    /** Tries are out, none has answered yet. */
    TRYING,
    /** One try's answer is going to the client: the other tries are gone. */
    ANSWERING,
    /** The request ended; nothing is out. */
    DONE
  }

  /** What a try lost without its answer means for the request. */
  public enum AfterLoss {
    /** It was not out (any more): nothing changes. */
    NOT_OUT,
    /** A hedge is still out and may answer; the oldest is in front now. */
    OTHER_TRY_OUT,
    /** Another try goes out (counted by {@link Tries}): the request may be sent again. */
    RETRY,
    /** It was the last try the request gets: the client gets the failure (or a held answer). */
    LAST,
    /** Its answer had started going to the client: the client's answer breaks. */
    MID_ANSWER
  }

  private final Tries tries;
  private final Deadlines deadlines;

  /** Where the members of new tries come from, through {@link Tries}. */
  private final PoolRouter router;

  private final Accounts<T> accounts;

  /** The hedges out, oldest first; null until the first (most requests are never hedged). */
  private ArrayList<T> hedges;

  private T front;
  private Phase phase = Phase.WAITING;

  public TryCourse(Tries tries, Deadlines deadlines, PoolRouter router, Accounts<T> accounts) {
    this.tries = tries;
    this.deadlines = deadlines;
    this.router = router;
    this.accounts = accounts;
  }

  public Phase phase() {
    return phase;
  }

  /** The try whose answer the client is to get; null when only hedges (or nothing) are out. */
  public T front() {
    return front;
  }

  /** The try the per-try timeout watches: the one in front, else the oldest hedge; or null. */
  public T watched() {
    return front != null ? front : hedgesOut() ? hedges.get(0) : null;
  }

  /** Whether {@code t} counts: in front, or a hedge out while no answer has started. */
  public boolean carries(T t) {
    if (t == null || phase == Phase.DONE) {
      return false;
    }
    return t == front || (phase == Phase.TRYING && hedges != null && hedges.contains(t));
  }

  /** A try ({@code t}) goes out in front: the first, or a retry. */
  public void sent(T t) {
    front = t;
    phase = Phase.TRYING;
    deadlines.trySent(t.sentAt());
  }

  /**
   * A hedge is due at {@code now}: returns the try {@code newTry} makes for a member not tried yet,
   * out beside the others, or null when none may go, and then no other will (no member left, the
   * retry budget spent, an answer already started, or a body past what is kept: {@link
   * Tries#hedgeable}). A hedge is sent the whole request at once: its delay counts from the end of
   * the request ({@link Deadlines}).
   */
  public T hedgeDue(long now, Function<Endpoint, T> newTry) {
    if (phase != Phase.TRYING || !tries.hedgeable()) {
      deadlines.stopHedging();
      return null;
    }
    if (!router.anyLeft(tries.tried())) {
      deadlines.stopHedging(); // no member left to hedge on
      return null;
    }
    if (!tries.mayHedge()) {
      deadlines.stopHedging();
      accounts.hedge("denied");
      return null;
    }
    Endpoint e = tries.next(router);
    if (e == null) {
      deadlines.stopHedging();
      return null;
    }
    T h = newTry.apply(e);
    if (hedges == null) {
      hedges = new ArrayList<>(2);
    }
    hedges.add(h);
    deadlines.hedgeSent(now);
    accounts.hedge("sent");
    return h;
  }

  /**
   * Try {@code t}'s member sent its answer's head at {@code now}: it carries the answer, every
   * other try loses (the one in front, if {@code t} is a hedge, as the slower one). Returns the try
   * it replaced in front, or null when it was in front already.
   */
  public T answered(T t, long now) {
    deadlines.headReceived(now);
    phase = Phase.ANSWERING;
    T replaced = null;
    if (t != front) {
      if (hedges != null) {
        hedges.remove(t);
      }
      replaced = front;
      if (replaced != null) {
        accounts.ended(replaced, End.SLOWER, true, "cancelled", now);
      }
      accounts.hedge("won");
      front = t;
    }
    cancelHedges(now);
    return replaced;
  }

  /**
   * Whether try {@code t}'s answer {@code status}, none of it passed on yet, may be replaced by
   * another try's ({@link #answerReplaced} without paying for it yet): then it is held back while
   * it comes, and decided on at its end.
   */
  public boolean mayReplace(T t, int status, boolean replayable) {
    return phase == Phase.TRYING
        && t == front
        && !hedgesOut()
        && replayable
        && tries.wouldRetryAnswer(status)
        && router.anyLeft(tries.tried());
  }

  /**
   * Try {@code t}'s member answered {@code status} before any of its answer went to the client:
   * whether another member gets the request instead ({@link Tries#wouldRetryAnswer}: a 502 or 503,
   * once, for a request the pool's members may receive twice, with the pool's {@code
   * retryIdempotentOn5xx}), paid from the retry budget. Only while {@code t} is the one try out, a
   * member not tried yet is left and the request can be sent again as it was ({@code replayable}).
   * When it is, {@code t} is over (its answer dropped, counted as its member's failure) and the
   * caller sends the retry.
   */
  public boolean answerReplaced(T t, int status, boolean replayable, long now) {
    if (!mayReplace(t, status, replayable)
        || !tries.shouldRetry(Tries.Outcome.UNAVAILABLE_ANSWER)) {
      return false;
    }
    front = null;
    phase = Phase.WAITING;
    accounts.ended(t, End.FAILED, true, "5xx", now);
    return true;
  }

  /**
   * Try {@code t} is lost without an answer at {@code now} ({@code label} for the metrics): its
   * member failed it. {@code outcome} says what it may have done, {@code replayable} whether the
   * request can still be sent as it was (a try that sent nothing needs no replay); together with
   * the pool's retries ({@link Tries}) they decide whether another try goes out.
   */
  public AfterLoss lost(T t, String label, Tries.Outcome outcome, boolean replayable, long now) {
    if (!carries(t)) {
      return AfterLoss.NOT_OUT;
    }
    boolean inFront = t == front;
    if (inFront) {
      front = null;
    } else {
      hedges.remove(t);
      accounts.hedge("failed");
    }
    accounts.ended(t, End.FAILED, inFront, label, now);
    if (phase == Phase.ANSWERING) {
      return AfterLoss.MID_ANSWER; // the request ends with its broken answer
    }
    if (front != null) {
      return AfterLoss.OTHER_TRY_OUT; // a hedge failed beside the waiting try
    }
    if (hedgesOut()) {
      deadlines.frontReplaced(hedges.get(0).sentAt());
      return AfterLoss.OTHER_TRY_OUT;
    }
    phase = Phase.WAITING;
    // A try that sent nothing leaves the request as it was; any other needs it whole. A retry is
    // paid for and counted only when a member not tried yet is left for it.
    boolean canResend = replayable || outcome == Tries.Outcome.CONNECT_FAILURE;
    if (canResend && router.anyLeft(tries.tried()) && tries.shouldRetry(outcome)) {
      return AfterLoss.RETRY;
    }
    return AfterLoss.LAST;
  }

  /**
   * The try in front carried its answer to the end, or was given up by the request itself (the
   * client left, the request's time ran out): returns it, no longer out, for its own accounts.
   */
  public T endFront() {
    T t = front;
    front = null;
    return t;
  }

  /** The request ends at {@code now}: every hedge still out is cancelled. */
  public void finish(long now) {
    phase = Phase.DONE;
    cancelHedges(now);
  }

  private boolean hedgesOut() {
    return hedges != null && !hedges.isEmpty();
  }

  private void cancelHedges(long now) {
    if (!hedgesOut()) {
      return;
    }
    for (T h : hedges) {
      accounts.ended(h, End.CANCELLED, false, "cancelled", now);
      accounts.hedge("lost");
    }
    hedges.clear();
  }
}
