package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.exchange.TryCourse;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.upstream.H1Upstream;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;

/**
 * The hedges of one hedged HTTP/1.x request, their bytes: each goes out on its own member
 * connection when its {@link TryCourse} says one is due, with the same head as the first try's, and
 * the first whose answer's head is complete is adopted by the exchange (its connection and the
 * bytes so far). Whether a hedge goes, wins or loses, and what its failure means, is the course's
 * to say. Its {@link TryRunner} owns one when the pool hedges the request and hears of a hedge's
 * failure through {@link Failures}; its {@link HedgeTry}s report here through {@link
 * HedgeTry.Owner}. Event loop only.
 */
final class Hedges implements HedgeTry.Owner {
  /** What a hedge's failure goes to ({@link TryRunner}): the course decides what follows. */
  interface Failures {
    /** Hedge {@code h} failed ({@code outcome}, {@code label}) before any answer. */
    void hedgeFailed(HedgeTry h, Tries.Outcome outcome, String label);
  }

  /**
   * The request a hedge may answer ({@link Http1Exchange}): whether it ended, and what reads the
   * member's bytes once a hedge wins.
   */
  interface Request extends H1Upstream.User {
    /** Whether the request ended: answered, given up, or its client gone. */
    boolean finished();
  }

  private final Forwarding fw;
  private final PoolRuntime pool;
  private final TryCourse<H1Try> course;
  private final Failures runner;
  private final Request exchange;
  private final FrontTry front;
  private final RequestRelay request;
  private final ResponseRelay response;

  Hedges(
      Forwarding fw,
      PoolRuntime pool,
      TryCourse<H1Try> course,
      Failures runner,
      Request exchange,
      FrontTry front,
      RequestRelay request,
      ResponseRelay response) {
    this.fw = fw;
    this.pool = pool;
    this.course = course;
    this.runner = runner;
    this.exchange = exchange;
    this.front = front;
    this.request = request;
    this.response = response;
  }

  /** A hedge is due: it goes to a member not tried yet, unless the course says none may. */
  void send(EventLoop loop, long now) {
    if (course.hedgeDue(now, e -> new HedgeTry(this, e, now)) instanceof HedgeTry h) {
      MemberLinks.open(fw, loop, pool, h.member(), h);
    }
  }

  /**
   * Hedge {@code h} has its connection: the whole request goes out on it, the same bytes as the
   * first try's (but its traceparent).
   */
  @Override
  public void sendRequest(HedgeTry h, Channel ch) {
    request.sendWhole(ch, front.traceparent(h.member(), h.sentAt()));
  }

  /** A hedge has a complete answer's head first: the exchange goes on with it. */
  @Override
  public void answered(HedgeTry h) {
    if (exchange.finished() || response.headDone() || !course.carries(h)) {
      h.cancel(); // not needed: the request ended, or another answer came first
      return;
    }
    if (course.answered(h, fw.clock.getAsLong()) != null) { // the try in front lost to it
      request.dropConnection();
      response.dropPartialHead();
    }
    front.start(h);
    request.adopt(h.adopt(exchange));
    exchange.memberBytes(h.takeReceived());
  }

  /** A hedge's connection failed or broke before any answer ({@code outcome}, {@code label}). */
  @Override
  public void failed(HedgeTry h, Tries.Outcome outcome, String label) {
    if (!exchange.finished()) {
      runner.hedgeFailed(h, outcome, label);
    }
  }
}
