package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.accesslog.AccessFlag;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import java.util.function.Consumer;

/**
 * What falls due for one HTTP/1.x exchange when its {@link DeadlineTimer} looks: the request's own
 * timeout and a member silent mid-answer end the request ({@link Http1Exchange#giveUp}), a try with
 * no answer's head in time is lost ({@link TryRunner#lost}), a hedge that is due goes out. Created
 * by its {@link TryRunner}; event loop only.
 */
final class TryTimeouts implements Consumer<Deadlines.Due> {
  private final Http1Exchange exchange;
  private final TryRunner runner;
  private final Forwarding fw;
  private final PoolRuntime pool;
  private final FrontTry front;
  private final RequestRelay request;
  private final ResponseRelay response;

  TryTimeouts(
      Http1Exchange exchange,
      TryRunner runner,
      Forwarding fw,
      PoolRuntime pool,
      FrontTry front,
      RequestRelay request,
      ResponseRelay response) {
    this.exchange = exchange;
    this.runner = runner;
    this.fw = fw;
    this.pool = pool;
    this.front = front;
    this.request = request;
    this.response = response;
  }

  @Override
  public void accept(Deadlines.Due due) {
    switch (due) {
      case REQUEST -> requestTimedOut();
      case TRY -> tryTimedOut(fw.clock.getAsLong());
      case IDLE -> idleTimedOut();
      case CLIENT_STALLED -> exchange.clientStalled();
      case CLIENT_SILENT -> exchange.clientSilent();
      case HEDGE -> runner.hedgeDue(fw.clock.getAsLong());
      case NONE -> {}
    }
  }

  private void requestTimedOut() {
    long ms = pool.requests().requestNanos() / 1_000_000L;
    exchange.flag(AccessFlag.DT);
    exchange.giveUp(
        "timeout",
        504,
        "pool " + pool.name() + " did not answer within its request timeout of " + ms + " ms");
  }

  /** The try in front had no answer's head within the per-try timeout. */
  private void tryTimedOut(long now) {
    long ms = pool.requests().perTryNanos() / 1_000_000L;
    Endpoint e;
    if (front.member() == null) {
      // A hedge is in front (the first try is gone already): it is given up on.
      e = runner.hedgeInFrontTimedOut(now);
    } else {
      e = front.failed("timeout");
      request.dropConnection();
      response.dropPartialHead();
    }
    String message = front.about(e, "did not answer within " + ms + " ms");
    runner.lost(504, message, request.retryable(), Tries.Outcome.TRY_TIMEOUT, "timeout");
  }

  private void idleTimedOut() {
    Endpoint e = front.member();
    if (e != null) { // with only hedges out, the per-try timeout covers them
      exchange.giveUp("timeout", 504, front.about(e, "did not answer in time"));
    }
  }
}
