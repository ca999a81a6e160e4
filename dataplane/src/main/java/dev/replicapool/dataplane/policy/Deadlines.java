package dev.replicapool.dataplane.policy;

/**
 * The clocks of one request: its own deadline, the try in front waiting for its answer's head, the
 * member's silence mid-exchange, and when the next hedge is due. The exchange reports what happens
 * and asks what is due at its single timer; this class decides, with no I/O and no clock of its
 * own. Times are nanoseconds of the data plane's clock.
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

  /** No try is out (between a failed try and the next, or after the answer ended). */
  public void idle() {
    waitingHead = false;
    hedgesLeft = 0;
    lastActivity = NEVER;
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
    if (requestDeadline != NEVER && now - requestDeadline >= 0) {
      return Due.REQUEST;
    }
    if (waitingHead && perTryNanos > 0 && now - frontSentAt >= perTryNanos) {
      return Due.TRY;
    }
    if (lastActivity != NEVER && idleNanos > 0 && now - lastActivity >= idleNanos) {
      return Due.IDLE;
    }
    if (waitingHead && hedgesLeft > 0 && now - lastSentAt >= hedgeDelayNanos) {
      return Due.HEDGE;
    }
    return Due.NONE;
  }

  /** When the timer should look again; {@link Long#MAX_VALUE} when nothing can fall due. */
  public long nextCheck() {
    long next = requestDeadline;
    if (waitingHead && perTryNanos > 0) {
      next = Math.min(next, frontSentAt + perTryNanos);
    }
    if (lastActivity != NEVER && idleNanos > 0) {
      next = Math.min(next, lastActivity + idleNanos);
    }
    if (waitingHead && hedgesLeft > 0) {
      next = Math.min(next, lastSentAt + hedgeDelayNanos);
    }
    return next;
  }
}
