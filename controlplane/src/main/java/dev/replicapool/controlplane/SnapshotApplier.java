package dev.replicapool.controlplane;

import dev.replicapool.api.wire.PoolSnapshot;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The data plane's side of the stream: applies what the operator pushes, atomically, and says
 * whether it worked. A failed future is answered with a NACK carrying the failure's message; the
 * applier then keeps serving what it had before.
 *
 * <p>The client calls {@link #applyAll} with the frames that arrived together, one batch at a time,
 * in the order of the frames, from its event loop; the next batch waits until every future of this
 * one completed. A batch never holds two changes of the same pool. Futures (rather than plain
 * return values) let an apply bind a dedicated port or swap TLS material before answering.
 */
public interface SnapshotApplier {

  /** One change the operator asks for: a snapshot to apply, or (snapshot null) a pool to forget. */
  record Change(PoolSnapshot snapshot, String pool, long version) {
    public Change {
      Objects.requireNonNull(pool, "pool");
    }

    /** A snapshot that {@link PoolSnapshot#problems()} found nothing wrong with. */
    public static Change apply(PoolSnapshot snapshot) {
      return new Change(snapshot, snapshot.pool(), snapshot.version());
    }

    public static Change remove(String pool, long version) {
      return new Change(null, pool, version);
    }

    public boolean isRemoval() {
      return snapshot == null;
    }
  }

  /** Applies a snapshot that {@link PoolSnapshot#problems()} found nothing wrong with. */
  Future<Void> apply(PoolSnapshot snapshot);

  /** Forgets a pool. Removing a pool that is not known succeeds. */
  Future<Void> remove(String pool, long version);

  /**
   * Applies changes that arrived together and answers each on its own: the i-th future is the i-th
   * change's outcome. The default applies them one after the other in order; an applier may judge
   * them together instead (one table swap for a burst, a host one pool gives up taken by another
   * whatever their order, two pools swapping hosts).
   */
  default List<Future<Void>> applyAll(List<Change> changes) {
    List<Future<Void>> results = new ArrayList<>(changes.size());
    Future<Void> previous = Future.succeededFuture();
    for (Change c : changes) {
      Future<Void> result = previous.transform(ar -> applyOne(c));
      results.add(result);
      previous = result;
    }
    return results;
  }

  private Future<Void> applyOne(Change c) {
    try {
      Future<Void> f = c.isRemoval() ? remove(c.pool(), c.version()) : apply(c.snapshot());
      return f == null ? Future.failedFuture("applier returned no result") : f;
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  /**
   * The operator has sent everything it knows (possibly nothing): the data plane is as current as
   * the control plane, even without a single pool.
   */
  default void synced() {}
}
