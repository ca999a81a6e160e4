package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.accesslog.AccessFlag;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.routing.Endpoint;
import java.util.function.Consumer;

/**
 * What falls due for one HTTP/1.x exchange when its {@link DeadlineTimer} looks: the request's own
 * timeout and a member silent mid-answer end the request ({@link Http1Exchange#giveUp}), a try with
 * no answer's head in time is lost ({@link TryRunner#tryTimedOut}), a hedge that is due goes out.
 * Created by its {@link TryRunner}; event loop only.
 */
final class TryTimeouts implements Consumer<Deadlines.Due> {
  private final Http1Exchange exchange;
  private final TryRunner runner;
  private final Forwarding fw;
  private final PoolRuntime pool;
  private final FrontTry front;

  TryTimeouts(
      Http1Exchange exchange, TryRunner runner, Forwarding fw, PoolRuntime pool, FrontTry front) {
    this.exchange = exchange;
    this.runner = runner;
    this.fw = fw;
    this.pool = pool;
    this.front = front;
  }

  @Override
  public void accept(Deadlines.Due due) {
    switch (due) {
      case REQUEST -> requestTimedOut();
      case TRY -> runner.tryTimedOut();
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

  private void idleTimedOut() {
    Endpoint e = front.member();
    if (e != null) { // with only hedges out, the per-try timeout covers them
      exchange.giveUp("timeout", 504, pool.aboutMember(e, "did not answer in time"));
    }
  }
}
