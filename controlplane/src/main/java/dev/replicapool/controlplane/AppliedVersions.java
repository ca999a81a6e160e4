package dev.replicapool.controlplane;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The data plane's ledger of what it applied: per pool the version of the last change that
 * succeeded (a snapshot or a removal), and which pools the current stream named. Versions only
 * grow: a frame is judged against it before anything is applied.
 *
 * <p>A removal keeps its version here, so that a replayed older snapshot is still refused, until
 * the operator shows by a complete {@code synced} that it has forgotten the pool too.
 *
 * <p>Plain Java, no I/O, not thread-safe: the client touches it from its one context.
 */
final class AppliedVersions {
  /** How a frame's version compares with what was applied for its pool. */
  enum Verdict {
    /** Nothing applied for the pool yet, or a version above the applied one: apply it. */
    NEWER,
    /** The version applied last: answer ACK again without applying it twice. */
    SAME,
    /** Older than what was applied: refuse it. */
    OLDER
  }

  private final Map<String, Long> applied = new HashMap<>();
  // Pools whose last applied change was a removal (their version stays in `applied`).
  private final Set<String> removed = new HashSet<>();
  // Pools named by a frame of the current stream: what the operator knows, once it says synced.
  private final Set<String> heardOf = new HashSet<>();

  Verdict judge(String pool, long version) {
    Long done = applied.get(pool);
    if (done == null || version > done) {
      return Verdict.NEWER;
    }
    return version == done ? Verdict.SAME : Verdict.OLDER;
  }

  /** The version of the last change applied for the pool, empty when none is remembered. */
  OptionalLong applied(String pool) {
    Long done = applied.get(pool);
    return done == null ? OptionalLong.empty() : OptionalLong.of(done);
  }

  /** The applier accepted this change. */
  void recordApplied(SnapshotApplier.Change change) {
    applied.put(change.pool(), change.version());
    if (change.isRemoval()) {
      removed.add(change.pool());
    } else {
      removed.remove(change.pool());
    }
  }

  /** A new stream opened: no pool was named on it yet. */
  void streamOpened() {
    heardOf.clear();
  }

  /** A frame of the current stream named the pool. */
  void heardOf(String pool) {
    heardOf.add(pool);
  }

  /**
   * Called at a complete {@code synced}, which vouches that the stream named every pool the
   * operator has: the pools applied here that it did not name were deleted while the two were
   * apart. Those whose last change was a removal are forgotten at once (the operator forgot the
   * removal too); the others are returned, each as a removal at its applied version, for the
   * applier. Call {@link #forget} for each removal that succeeded.
   */
  List<SnapshotApplier.Change> removalsOfUnnamedPools() {
    List<SnapshotApplier.Change> removals = new ArrayList<>();
    for (Map.Entry<String, Long> e : new ArrayList<>(applied.entrySet())) {
      String pool = e.getKey();
      if (heardOf.contains(pool)) {
        continue;
      }
      if (removed.remove(pool)) {
        applied.remove(pool);
      } else {
        removals.add(SnapshotApplier.Change.remove(pool, e.getValue()));
      }
    }
    return removals;
  }

  /** Drops what was remembered of the pool: any version of it is new again. */
  void forget(String pool) {
    applied.remove(pool);
  }
}
