package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import java.util.ArrayList;

/**
 * The hedges of one hedged HTTP/1.x request, oldest first: sends the next when {@link Deadlines}
 * says it is due, keeps each one's accounts (its member's in-flight slot, failures, metrics) when
 * it ends, and decides what a hedge's answer or failure means: the first complete head takes the
 * place of the try in front, the last try out failing is a lost try ({@link TryRunner#lost}). Its
 * {@link TryRunner} owns one when the pool hedges the request; its {@link HedgeTry}s report here.
 * Event loop only.
 */
final class Hedges {
  private final ArrayList<HedgeTry> inFlight = new ArrayList<>(2);
  private final Forwarding fw;
  private final PoolRuntime pool;
  private final Tries tries;
  private final Deadlines deadlines;
  private final TryRunner runner;
  private final Http1Exchange exchange;
  private final FrontTry front;
  private final RequestRelay request;
  private final ResponseRelay response;

  Hedges(
      Forwarding fw,
      PoolRuntime pool,
      Tries tries,
      Deadlines deadlines,
      TryRunner runner,
      Http1Exchange exchange,
      FrontTry front,
      RequestRelay request,
      ResponseRelay response) {
    this.fw = fw;
    this.pool = pool;
    this.tries = tries;
    this.deadlines = deadlines;
    this.runner = runner;
    this.exchange = exchange;
    this.front = front;
    this.request = request;
    this.response = response;
  }

  /** A hedge is due: it goes to a member not tried yet, unless none is left or the budget is. */
  void send(EventLoop loop, long now) {
    if (pool.router().routableCount() <= tries.tried().size()) {
      deadlines.stopHedging(); // no member left to hedge on
      return;
    }
    if (!tries.mayHedge()) {
      deadlines.stopHedging();
      front.observer().hedge(pool.name(), "denied");
      return;
    }
    Endpoint e = tries.next(pool.router());
    if (e == null) {
      deadlines.stopHedging();
      return;
    }
    HedgeTry h = new HedgeTry(this, e, now);
    inFlight.add(h);
    deadlines.hedgeSent(now);
    front.observer().hedge(pool.name(), "sent");
    MemberLinks.open(fw, loop, pool, e, h);
  }

  boolean any() {
    return !inFlight.isEmpty();
  }

  /** The try in front is gone; the oldest hedge is now the one the per-try timeout watches. */
  void frontIsHedge() {
    deadlines.frontReplaced(inFlight.get(0).sentAt);
  }

  /** The head hedge {@code h} sends: the same bytes as the first try's (but its traceparent). */
  ByteBuf head(HedgeTry h) {
    return request.headFor(front.traceparent(h.member, h.sentAt));
  }

  /** A hedge has a complete answer's head first: the exchange goes on with it. */
  void answered(HedgeTry h) {
    inFlight.remove(h);
    if (exchange.finished() || response.headDone()) {
      h.cancel(); // not needed: the request ended, or another answer came first
      ended(h, "cancelled", fw.clock.getAsLong() - h.sentAt, false);
      return;
    }
    if (front.member() != null) {
      front.lostToHedge();
      request.dropConnection();
      response.dropPartialHead();
    }
    front.observer().hedge(pool.name(), "won");
    front.adopt(h.member, h.sentAt);
    request.adopt(h.adopt(exchange));
    exchange.memberBytes(h.takeReceived());
  }

  /** A hedge's connection failed or broke before any answer: counted against its member. */
  void failed(HedgeTry h, Tries.Outcome outcome, String label) {
    if (!inFlight.remove(h)) {
      return;
    }
    ended(h, label, fw.clock.getAsLong() - h.sentAt, true);
    front.observer().hedge(pool.name(), "failed");
    if (exchange.finished() || front.member() != null || response.headDone()) {
      return;
    }
    if (any()) {
      frontIsHedge();
      return;
    }
    // It was the last try out.
    runner.lost(502, front.about(h.member, "failed"), true, outcome, label);
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
      front.observer().hedge(pool.name(), outcome);
    }
    inFlight.clear();
  }

  private void ended(HedgeTry h, String outcome, long nanos, boolean memberFailed) {
    pool.requests().released(h.member);
    if (memberFailed) {
      pool.router().failure(h.member, nanos);
    }
    front.observer().attempt(pool.name(), h.member, outcome, nanos);
  }
}
