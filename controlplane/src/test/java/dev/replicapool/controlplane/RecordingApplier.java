package dev.replicapool.controlplane;

import dev.replicapool.api.wire.PoolSnapshot;
import io.vertx.core.Future;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** Keeps what it was given, like a data plane's table would; can be told to reject a pool. */
final class RecordingApplier implements SnapshotApplier {
  final List<String> calls = new CopyOnWriteArrayList<>();
  final Map<String, PoolSnapshot> current = new ConcurrentHashMap<>();
  final Map<String, String> rejectPools = new ConcurrentHashMap<>();

  /** The pools of each batch the client handed over, in order. */
  final List<List<String>> batches = new CopyOnWriteArrayList<>();

  @Override
  public List<Future<Void>> applyAll(List<Change> changes) {
    batches.add(changes.stream().map(Change::pool).toList());
    return SnapshotApplier.super.applyAll(changes);
  }

  @Override
  public Future<Void> apply(PoolSnapshot snapshot) {
    calls.add("apply " + snapshot.pool() + " " + snapshot.version());
    String reason = rejectPools.get(snapshot.pool());
    if (reason != null) {
      return Future.failedFuture(reason);
    }
    current.put(snapshot.pool(), snapshot);
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> remove(String pool, long version) {
    calls.add("remove " + pool + " " + version);
    current.remove(pool);
    return Future.succeededFuture();
  }

  @Override
  public void synced() {
    calls.add("synced");
  }

  long version(String pool) {
    PoolSnapshot s = current.get(pool);
    return s == null ? 0 : s.version();
  }
}
