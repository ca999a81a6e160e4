package dev.replicapool.dataplane.policy;

/**
 * The clocks of one request: its own deadline, the try in front waiting for its answer's head, the
 * member's silence mid-exchange, the client's silence before its request is complete or its refusal
 * to take the answer, and when the next hedge is due. Whose silence it is follows from who is
 * waiting on whom: a member waits for a body the client has not sent, the proxy stops reading a
 * member whose client takes nothing, the client waits while the proxy stops reading it for a member
 * that takes nothing. The exchange reports what happens and asks what is due at its single timer;
 * this class decides, with no I/O and no clock of its own. Times are nanoseconds of the data
 * plane's clock.
 */
public final class Deadlines {
  /** What the timer has to do now, most urgent first. */
  public enum Due {
    NONE,
    /** The request's own time is up. */
    REQUEST,
    /** The try in front has had no answer's head for the per-try timeout. */
    TRY,
    /** The member has been silent for the idle timeout. */
    IDLE,
    /**
     * The client has taken none of the answer for the idle timeout (or still held it when the
     * request's time ran out). The member was not read meanwhile: its silence is not its own.
     */
    CLIENT_STALLED,
    /**
     * The client has sent none of the rest of its request for the idle timeout, while nothing held
     * its reading back: the member waits for it, its silence is not its own.
     */
    CLIENT_SILENT,
    /** Another try goes out beside the waiting ones. */
    HEDGE
  }

  private static final long NEVER = Long.MAX_VALUE;

  private long requestDeadline;
  private final long perTryNanos;
  private final long idleNanos;
  private long frontSentAt = NEVER;
  private long lastSentAt = NEVER;
  private long lastActivity = NEVER;
  private long clientBlockedSince = NEVER;
  private boolean requestOwed;
  private boolean clientReadsPaused;
  private long lastClientBytes = NEVER;
  private boolean waitingHead;
  private long hedgeDelayNanos;
  private int hedgesLeft;

  /**
   * @param start when the request arrived
   * @param requestNanos the request's time, 0 for none
   * @param perTryNanos the time to an answer's head per try, 0 for none
   * @param idleNanos the longest silence of a member mid-exchange, 0 for none
   */
  public Deadlines(long start, long requestNanos, long perTryNanos, long idleNanos) {
    this.requestDeadline = requestNanos > 0 ? start + requestNanos : NEVER;
    this.perTryNanos = perTryNanos;
    this.idleNanos = idleNanos;
  }

  /** Hedges may follow the first try, {@code delayNanos} apart. */
  public void hedging(int maxHedges, long delayNanos) {
    hedgesLeft = maxHedges;
    hedgeDelayNanos = delayNanos;
  }

  /** The request's deadline moves earlier (a gRPC call's own grpc-timeout, say). */
  public void shortenTo(long deadline) {
    requestDeadline = Math.min(requestDeadline, deadline);
  }

  /** A try went to a member and waits for its answer's head (it is the one in front). */
  public void trySent(long now) {
    frontSentAt = now;
    lastSentAt = now;
    lastActivity = now;
    waitingHead = true;
  }

  /** A hedge went out; the try in front stays in front. */
  public void hedgeSent(long now) {
    lastSentAt = now;
    hedgesLeft--;
  }

  /** The try in front was given up while a later one waits: that one, sent then, is in front. */
  public void frontReplaced(long sentAt) {
    frontSentAt = sentAt;
  }

  /** An answer's head came: no more hedges or per-try limits; only silence and the deadline. */
  public void headReceived(long now) {
    waitingHead = false;
    hedgesLeft = 0;
    lastActivity = now;
  }

  /** The member sent or took bytes. */
  public void activity(long now) {
    lastActivity = now;
  }

  /**
   * The client cannot take more of the answer, so the member is no longer read: until {@link
   * #clientUnblocked}, the silence is the client's and the member's idle clock stops.
   */
  public void clientBlocked(long now) {
    if (clientBlockedSince == NEVER) {
      clientBlockedSince = now;
    }
  }

  /** The client takes the answer again: the member is read again, its idle clock starts afresh. */
  public void clientUnblocked(long now) {
    if (clientBlockedSince != NEVER) {
      clientBlockedSince = NEVER;
      if (lastActivity != NEVER) {
        lastActivity = now;
      }
    }
  }

  /** The client has not sent all of its request yet (its body is still coming). */
  public void requestOwed(long now) {
    requestOwed = true;
    lastClientBytes = now;
  }

  /**
   * Bytes of the request's body came from the client and go to the member; {@code last}: the
   * request is complete.
   */
  public void clientSent(long now, boolean last) {
    lastClientBytes = now;
    if (lastActivity != NEVER) {
      lastActivity = now; // on their way to the member: its silence counts from here
    }
    if (last && requestOwed) {
      requestOwed = false;
      // A member cannot answer before it has the request: a hedge's delay counts from its end.
      lastSentAt = lastSentAt == NEVER ? NEVER : Math.max(lastSentAt, now);
    }
  }

  /**
   * The proxy stopped reading the client (no member connection yet, or the member takes no more):
   * while it has, the client's silence is not its own.
   */
  public void clientReadsPaused(boolean paused, long now) {
    if (clientReadsPaused && !paused) {
      lastClientBytes = now; // its silence counts afresh from when it may send again
    }
    clientReadsPaused = paused;
  }

  /** No try is out (between a failed try and the next, or after the answer ended). */
  public void idle() {
    waitingHead = false;
    hedgesLeft = 0;
    lastActivity = NEVER;
    clientBlockedSince = NEVER;
  }

  /** No more hedges for this request (the budget is spent, or no member is left for one). */
  public void stopHedging() {
    hedgesLeft = 0;
  }

  /** Whether another hedge may still go out. */
  public boolean hedgesLeft() {
    return hedgesLeft > 0;
  }

  /** What is due at {@code now}, the most urgent first. */
  public Due due(long now) {
    boolean blocked = clientBlockedSince != NEVER;
    if (requestDeadline != NEVER && now - requestDeadline >= 0) {
      return blocked ? Due.CLIENT_STALLED : Due.REQUEST;
    }
    if (waitingHead && perTryNanos > 0 && now - frontSentAt >= perTryNanos) {
      return Due.TRY;
    }
    if (blocked) {
      if (idleNanos > 0 && now - clientBlockedSince >= idleNanos) {
        return Due.CLIENT_STALLED;
      }
    } else if (lastActivity != NEVER && idleNanos > 0 && now - silentSince() >= idleNanos) {
      // Bytes either way keep an exchange whose request is still coming alive (a long upload).
      return clientSilent() ? Due.CLIENT_SILENT : Due.IDLE;
    }
    if (hedgeWaits() && now - lastSentAt >= hedgeDelayNanos) {
      return Due.HEDGE;
    }
    return Due.NONE;
  }

  /**
   * Whether a hedge is to follow once its delay passed: tries wait for an answer's head, hedges are
   * left, and the whole request is here (a hedge is sent all of it at once; for a request whose
   * body came after its try went out, the delay counts from the body's end).
   */
  private boolean hedgeWaits() {
    return waitingHead && hedgesLeft > 0 && !requestOwed;
  }

  /** The member may be waiting for the client: it owes the rest and nothing holds it back. */
  private boolean clientSilent() {
    return requestOwed && !clientReadsPaused;
  }

  /** Since when nothing moved that the exchange waits for (a try must be out). */
  private long silentSince() {
    return clientSilent() ? Math.max(lastActivity, lastClientBytes) : lastActivity;
  }

  /** When the timer should look again; {@link Long#MAX_VALUE} when nothing can fall due. */
  public long nextCheck() {
    long next = requestDeadline;
    if (waitingHead && perTryNanos > 0) {
      next = Math.min(next, frontSentAt + perTryNanos);
    }
    if (clientBlockedSince != NEVER && idleNanos > 0) {
      next = Math.min(next, clientBlockedSince + idleNanos);
    } else if (lastActivity != NEVER && idleNanos > 0) {
      next = Math.min(next, silentSince() + idleNanos);
    }
    if (hedgeWaits()) {
      next = Math.min(next, lastSentAt + hedgeDelayNanos);
    }
    return next;
  }
}
