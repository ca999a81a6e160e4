package dev.replicapool.controlplane;

import dev.replicapool.api.wire.PoolSnapshot;
import io.vertx.core.Future;

/**
 * The data plane's side of the stream: applies what the operator pushes, atomically, and says
 * whether it worked. A failed future is answered with a NACK carrying the failure's message; the
 * applier then keeps serving what it had before.
 *
 * <p>Calls are made one at a time, in the order of the frames, from the client's event loop; the
 * next frame waits until the previous future completed. Futures (rather than a plain return value)
 * let an apply bind a dedicated port or swap TLS material before answering.
 */
public interface SnapshotApplier {

  /** Applies a snapshot that {@link PoolSnapshot#problems()} found nothing wrong with. */
  Future<Void> apply(PoolSnapshot snapshot);

  /** Forgets a pool. Removing a pool that is not known succeeds. */
  Future<Void> remove(String pool, long version);

  /**
   * The operator has sent everything it knows (possibly nothing): the data plane is as current as
   * the control plane, even without a single pool.
   */
  default void synced() {}
}
