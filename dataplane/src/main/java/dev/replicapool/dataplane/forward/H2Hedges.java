package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.routing.Endpoint;
import java.util.ArrayList;

/**
 * The hedges of one client HTTP/2 stream ({@link H2StreamForwarder}) still waiting for an answer's
 * head, oldest first, and what each one's end costs: its member's in-flight slot, the balancer's
 * failure when the member failed it, the metrics ({@code replicapool_hedges_total} and the try's
 * attempt). Whether a hedge may go out is {@link Tries}'s to say ({@link Tries#mayHedge}, members
 * not tried yet), when {@link Deadlines}'s; the stream decides what a hedge's answer or failure
 * means. Event loop only.
 */
final class H2Hedges {
  /** Makes the try of a hedge to {@code member} sent at {@code now}. */
  interface NewTry {
    H2Try to(Endpoint member, long now);
  }

  private final ArrayList<H2Try> out = new ArrayList<>(2);
  private final PoolRuntime pool;

  H2Hedges(PoolRuntime pool) {
    this.pool = pool;
  }

  /**
   * A hedge is due at {@code now}: returns the new try for a member not tried yet (made by {@code
   * newTry}, already counted out), or null when none may go, and then no other will.
   */
  H2Try send(Tries tries, Deadlines deadlines, ProxyObserver observer, long now, NewTry newTry) {
    if (pool.router().routableCount() <= tries.tried().size()) {
      deadlines.stopHedging(); // no member left to hedge on
      return null;
    }
    if (!tries.mayHedge()) {
      deadlines.stopHedging();
      observer.hedge(pool.name(), "denied");
      return null;
    }
    Endpoint e = tries.next(pool.router());
    if (e == null) {
      deadlines.stopHedging();
      return null;
    }
    H2Try h = newTry.to(e, now);
    out.add(h);
    deadlines.hedgeSent(now);
    observer.hedge(pool.name(), "sent");
    return h;
  }

  boolean any() {
    return !out.isEmpty();
  }

  boolean has(H2Try t) {
    return out.contains(t);
  }

  /** The oldest hedge, which the per-try timeout watches once the first try is gone. */
  H2Try oldest() {
    return out.get(0);
  }

  /** Hedge {@code h} has its answer's head first: it leaves the hedges to carry the answer. */
  void won(H2Try h, ProxyObserver observer) {
    out.remove(h);
    observer.hedge(pool.name(), "won");
  }

  /**
   * Hedge {@code h} ended without an answer ({@code label}: its member's failure) at {@code now};
   * returns whether it was still out.
   */
  boolean failed(H2Try h, String label, long now, ProxyObserver observer) {
    if (!out.remove(h)) {
      return false;
    }
    h.cancel();
    end(h, label, now, true, observer);
    observer.hedge(pool.name(), "failed");
    return true;
  }

  /** Every hedge still out is cancelled ({@code outcome}: lost to another try, or the end). */
  void cancelAll(String outcome, long now, ProxyObserver observer) {
    for (H2Try h : out) {
      h.cancel();
      end(h, "cancelled", now, false, observer);
      observer.hedge(pool.name(), outcome);
    }
    out.clear();
  }

  private void end(H2Try h, String label, long now, boolean memberFailed, ProxyObserver observer) {
    long nanos = h.end();
    if (memberFailed) {
      pool.router().failure(h.member(), nanos);
    }
    observer.attempt(pool.name(), h.member(), label, nanos);
  }
}
