package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.policy.AdmissionQueue;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One request's place in its pool's {@link AdmissionQueue} while every member is at its in-flight
 * limit: woken on its own event loop when a slot is freed, answered by its owner when its time is
 * up. Shared by the HTTP/1.x exchange's {@link TryRunner} and the HTTP/2 stream forwarder.
 */
final class QueueSlot implements AdmissionQueue.Waiter {
  /** The queued request. */
  interface Owner {
    /** Whether it ended meanwhile (its client went away, its deadline passed). */
    boolean gone();

    /** Its tries, to pick a member with. */
    Tries tries();

    /** It left the queue with a member ({@code e}), or with none left at all (null). */
    void admitted(Endpoint e);

    /** The queue timeout passed: answer 503. */
    void queueTimedOut(String message);
  }

  private final Forwarding fw;
  private final PoolRuntime pool;
  private final EventExecutor loop;
  private final Owner owner;
  private ScheduledFuture<?> timer;
  private long deadline;

  QueueSlot(Forwarding fw, PoolRuntime pool, EventExecutor loop, Owner owner) {
    this.fw = fw;
    this.pool = pool;
    this.loop = loop;
    this.owner = owner;
  }

  /** Takes a place in the queue; false (counted as overflow) when there is none or it is full. */
  boolean enter() {
    AdmissionQueue q = pool.requests().queue();
    if (q == null || !q.offer(this)) {
      fw.observer.queue(pool.name(), "overflow");
      return false;
    }
    fw.observer.queue(pool.name(), "queued");
    deadline = q.deadlineFromNow();
    timer = loop.schedule(this::timedOut, q.timeoutNanos(), TimeUnit.NANOSECONDS);
    return true;
  }

  @Override
  public void wake() {
    loop.execute(this::pickAgain);
  }

  /** A slot may be free: on the request's loop, it picks again or keeps its place in front. */
  private void pickAgain() {
    if (owner.gone()) {
      pool.requests().queue().slotFreed(); // the slot goes to the next one
      return;
    }
    Tries tries = owner.tries();
    Endpoint e = tries.next(pool.router());
    if (e == null && tries.noMember() == Tries.NoMember.ALL_FULL) {
      pool.requests().queue().requeueFirst(this, deadline); // another request took it first
      return;
    }
    stopTimer();
    fw.observer.queue(pool.name(), "admitted");
    owner.admitted(e);
  }

  /** The request ended while waiting (its client went away, say). */
  void leave() {
    if (timer != null) {
      stopTimer();
      pool.requests().queue().remove(this);
    }
  }

  private void timedOut() {
    timer = null;
    if (pool.requests().queue().remove(this)) {
      fw.observer.queue(pool.name(), "timeout");
      long ms = pool.requests().queue().timeoutNanos() / 1_000_000L;
      owner.queueTimedOut(
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
  static String fullMessage(PoolRuntime pool) {
    return "every member of pool "
        + pool.name()
        + " is at its limit of "
        + pool.requests().maxPerMember()
        + " requests in flight"
        + (pool.requests().queue() != null ? " and its queue is full" : "");
  }
}
