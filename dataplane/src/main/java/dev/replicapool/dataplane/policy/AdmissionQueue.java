package dev.replicapool.dataplane.policy;

import java.util.ArrayDeque;
import java.util.function.LongSupplier;

/**
 * Requests waiting for a member below its in-flight limit, in arrival order, each until its
 * deadline. Shared by the event loops of one data plane; a waiter is handed back to its own loop by
 * the caller. Plain code, no I/O, no timers: the caller expires waiters when their time is up.
 */
public final class AdmissionQueue {
  /** One waiting request. */
  public interface Waiter {
    /** A member slot may be free: try to pick again (called once, from any thread). */
    void wake();
  }

  private final int maxPending;
  private final long timeoutNanos;
  private final LongSupplier clock;
  private final ArrayDeque<Entry> waiting = new ArrayDeque<>();

  private record Entry(Waiter waiter, long deadline) {}

  public AdmissionQueue(int maxPending, long timeoutNanos, LongSupplier clock) {
    this.maxPending = Math.max(0, maxPending);
    this.timeoutNanos = timeoutNanos;
    this.clock = clock;
  }

  public int maxPending() {
    return maxPending;
  }

  public long timeoutNanos() {
    return timeoutNanos;
  }

  /** Queues a request; false when the queue is full (the request gets 503 at once). */
  public synchronized boolean offer(Waiter w) {
    if (waiting.size() >= maxPending) {
      return false;
    }
    waiting.addLast(new Entry(w, deadlineFromNow()));
    return true;
  }

  /**
   * A woken request found every slot taken again (another took it first): it goes back to the front
   * with the deadline it had.
   */
  public synchronized void requeueFirst(Waiter w, long deadline) {
    waiting.addFirst(new Entry(w, deadline));
  }

  /** When a request queued now must leave the queue. */
  public long deadlineFromNow() {
    return clock.getAsLong() + timeoutNanos;
  }

  /** Whether requests wait: a new request queues behind them instead of taking a freed slot. */
  public synchronized boolean busy() {
    return !waiting.isEmpty();
  }

  /**
   * A slot was freed: the longest-waiting request still within its time is woken (and leaves the
   * queue); those past their time leave unwoken (their own timer answers them).
   */
  public void slotFreed() {
    Waiter next;
    synchronized (this) {
      if (waiting.isEmpty()) {
        return;
      }
      long now = clock.getAsLong();
      Entry e;
      while ((e = waiting.pollFirst()) != null && e.deadline - now <= 0) {
        // expired: its timer answers it
      }
      if (e == null) {
        return;
      }
      next = e.waiter;
    }
    next.wake();
  }

  /** The request's time is up or it went away: it leaves the queue. True when it was still in. */
  public synchronized boolean remove(Waiter w) {
    return waiting.removeIf(e -> e.waiter == w);
  }

  /** Requests waiting now. */
  public synchronized int depth() {
    return waiting.size();
  }
}
