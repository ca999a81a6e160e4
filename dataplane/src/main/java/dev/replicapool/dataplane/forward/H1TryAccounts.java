package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.exchange.TryCourse;

/**
 * What the end of an HTTP/1.x try that does not carry the answer costs. The try in front keeps its
 * accounts in {@link FrontTry} (its member's health, the latency window, the metrics); a hedge
 * still out frees its member's slot and counts its attempt here, and a failure against its member.
 * Its {@link TryCourse} decides when.
 */
final class H1TryAccounts implements TryCourse.Accounts<H1Try> {
  private final PoolRuntime pool;
  private final FrontTry front;

  H1TryAccounts(PoolRuntime pool, FrontTry front) {
    this.pool = pool;
    this.front = front;
  }

  @Override
  public void hedge(String outcome) {
    front.observer().hedge(pool.name(), outcome);
  }

  @Override
  public void ended(H1Try t, TryCourse.End end, String label, long now) {
    t.cancel();
    if (front.holds(t)) {
      switch (end) {
        case FAILED -> front.failed(label);
        case SLOWER -> front.lostToHedge();
        case CANCELLED -> front.aborted();
      }
      return;
    }
    long nanos = now - t.sentAt();
    pool.requests().released(t.member());
    if (end == TryCourse.End.FAILED) {
      pool.router().failure(t.member(), nanos);
    }
    front.observer().attempt(pool.name(), t.member(), label, nanos);
  }
}
