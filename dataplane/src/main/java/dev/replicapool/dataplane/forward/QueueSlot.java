package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.policy.AdmissionQueue;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.routing.Endpoint;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One request's place in its pool's {@link AdmissionQueue} while every member is at its in-flight
 * limit: decides when a request waits ({@link #othersWait}, {@link #mayWait}), wakes it on its own
 * event loop when a slot is freed, and how it leaves: with a member for its try, or with the 503
 * the proxy answers (the queue full, its timeout passed, no member left at all). Shared by the
 * HTTP/1.x exchange's {@link TryRunner} and the HTTP/2 {@link H2StreamForwarder}; made only for a
 * request that waits.
 */
final class QueueSlot implements AdmissionQueue.Waiter {
  /** The queued request. */
  interface Owner {
    /** It left the queue with a free slot on {@code e}: its try goes there. */
    void startTry(Endpoint e);

    /** It cannot wait, or waited in vain: the proxy answers it itself ({@code status} 503). */
    void localAnswer(int status, String message);
  }

  private final Forwarding fw;
  private final PoolRuntime pool;
  private final EventExecutor loop;
  private final Tries tries;
  private final Owner owner;
  private final ProxyObserver observer;
  private ScheduledFuture<?> timer;
  private long deadline;

  /** Its request ended (its client went away, its deadline passed): it is answered no more. */
  private boolean left;

  QueueSlot(
      Forwarding fw,
      PoolRuntime pool,
      EventExecutor loop,
      Tries tries,
      Owner owner,
      ProxyObserver observer) {
    this.observer = observer;
    this.fw = fw;
    this.pool = pool;
    this.loop = loop;
    this.tries = tries;
    this.owner = owner;
  }

  /** Whether others wait for a slot already: a new request queues behind them. */
  static boolean othersWait(PoolRuntime pool) {
    AdmissionQueue q = pool.requests().queue();
    return q != null && q.busy();
  }

  /** Whether a request that found no member waits for one: every member is full, none tried yet. */
  static boolean mayWait(Tries tries) {
    return tries.noMember() == Tries.NoMember.ALL_FULL && tries.tried().isEmpty();
  }

  /** Takes a place in the queue; answered 503 at once (counted as overflow) when there is none. */
  void enter() {
    AdmissionQueue q = pool.requests().queue();
    if (q == null || !q.offer(this)) {
      observer.queue(pool.name(), "overflow");
      owner.localAnswer(503, fullMessage(pool));
      return;
    }
    observer.queue(pool.name(), "queued");
    deadline = q.deadlineFromNow();
    timer = loop.schedule(this::timedOut, q.timeoutNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public void wake() {
    loop.execute(this::pickAgain);
  }

  /** A slot may be free: on the request's loop, it picks again or keeps its place in front. */
  private void pickAgain() {
    if (left) {
      pool.requests().queue().slotFreed(); // the slot goes to the next one
      return;
    }
    Endpoint e = tries.next(pool.router());
    if (e == null && tries.noMember() == Tries.NoMember.ALL_FULL) {
      pool.requests().queue().requeueFirst(this, deadline); // another request took it first
      return;
    }
    stopTimer();
    observer.queue(pool.name(), "admitted");
    if (e == null) {
      owner.localAnswer(503, "no routable member in pool " + pool.name());
    } else {
      owner.startTry(e);
    }
  }

  /** The request ended (its client went away, say): it leaves the queue if it still waits. */
  void leave() {
    left = true;
    if (timer != null) {
      stopTimer();
      pool.requests().queue().remove(this);
    }
  }

  private void timedOut() {
    timer = null;
    if (pool.requests().queue().remove(this)) {
      observer.queue(pool.name(), "timeout");
      long ms = pool.requests().queue().timeoutNanos() / 1_000_000L;
      owner.localAnswer(
          503,
          "no member of pool "
              + pool.name()
              + " had a free slot within "
              + ms
              + " ms (maxRequestsPerMember "
              + pool.requests().maxPerMember()
              + ")");
    }
  }

  private void stopTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  /** The 503 text when every member is full and the request cannot wait. */
  private static String fullMessage(PoolRuntime pool) {
    return "every member of pool "
        + pool.name()
        + " is at its limit of "
        + pool.requests().maxPerMember()
        + " requests in flight"
        + (pool.requests().queue() != null ? " and its queue is full" : "");
  }
}
