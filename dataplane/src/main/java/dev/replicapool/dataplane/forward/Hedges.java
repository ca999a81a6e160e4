package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import io.netty.channel.EventLoop;
import java.util.ArrayList;

/**
 * The hedges of one hedged HTTP/1.x request, oldest first: sends the next when {@link Deadlines}
 * says it is due and keeps each one's accounts (its member's in-flight slot, failures, metrics)
 * when it ends. What a hedge's answer or failure means for the request is {@link Http1Exchange}'s
 * to decide; it owns one of these when the pool hedges the request. Event loop only.
 */
final class Hedges {
  private final ArrayList<HedgeTry> inFlight = new ArrayList<>(2);
  private final Forwarding fw;
  private final PoolRuntime pool;
  private final Tries tries;
  private final Deadlines deadlines;

  Hedges(Forwarding fw, PoolRuntime pool, Tries tries, Deadlines deadlines) {
    this.fw = fw;
    this.pool = pool;
    this.tries = tries;
    this.deadlines = deadlines;
  }

  /** A hedge is due: it goes to a member not tried yet, unless none is left or the budget is. */
  void send(Http1Exchange exchange, EventLoop loop, long now) {
    if (pool.router().routableCount() <= tries.tried().size()) {
      deadlines.stopHedging(); // no member left to hedge on
      return;
    }
    if (!tries.mayHedge()) {
      deadlines.stopHedging();
      fw.observer.hedge(pool.name(), "denied");
      return;
    }
    Endpoint e = tries.next(pool.router());
    if (e == null) {
      deadlines.stopHedging();
      return;
    }
    HedgeTry h = new HedgeTry(exchange, e, now);
    inFlight.add(h);
    deadlines.hedgeSent(now);
    fw.observer.hedge(pool.name(), "sent");
    MemberLinks.open(fw, loop, pool, e, h);
  }

  boolean any() {
    return !inFlight.isEmpty();
  }

  /** The try in front is gone; the oldest hedge is now the one the per-try timeout watches. */
  void frontIsHedge() {
    deadlines.frontReplaced(inFlight.get(0).sentAt);
  }

  /** Takes {@code h} out of the ones in flight; false when it was not (any more) among them. */
  boolean remove(HedgeTry h) {
    return inFlight.remove(h);
  }

  /** A hedge answered but is not needed (the request ended, or another answer came first). */
  void cancel(HedgeTry h) {
    h.cancel();
    ended(h, "cancelled", fw.clock.getAsLong() - h.sentAt, false);
  }

  /**
   * A hedge's connection failed or broke before any answer; false when it had left already. Counted
   * against its member.
   */
  boolean failed(HedgeTry h, String label) {
    if (!inFlight.remove(h)) {
      return false;
    }
    ended(h, label, fw.clock.getAsLong() - h.sentAt, true);
    fw.observer.hedge(pool.name(), "failed");
    return true;
  }

  /** The oldest hedge, in front now, had no answer's head in time: given up on; its member. */
  Endpoint frontTimedOut(long now) {
    HedgeTry h = inFlight.remove(0);
    h.cancel();
    ended(h, "timeout", now - h.sentAt, true);
    return h.member;
  }

  /** An answer's head came (or the request ended): every hedge still out is cancelled. */
  void cancelAll(String outcome) {
    if (inFlight.isEmpty()) {
      return;
    }
    long now = fw.clock.getAsLong();
    for (HedgeTry h : inFlight) {
      h.cancel();
      ended(h, "cancelled", now - h.sentAt, false);
      fw.observer.hedge(pool.name(), outcome);
    }
    inFlight.clear();
  }

  private void ended(HedgeTry h, String outcome, long nanos, boolean memberFailed) {
    pool.requests().released(h.member);
    if (memberFailed) {
      pool.router().failure(h.member, nanos);
    }
    fw.observer.attempt(pool.name(), h.member, outcome, nanos);
  }
}
