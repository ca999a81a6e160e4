package dev.replicapool.controlplane;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import dev.replicapool.api.wire.StreamMessage;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The latest frame of every pool the server published or removed, and the versions that may follow
 * it. Versions only grow per pool, removals included, and a new one is at least the wall clock in
 * milliseconds, so that they also top the versions of an earlier operator process.
 *
 * <p>Plain Java, no I/O, not thread-safe: the server's lock guards it together with the
 * connections. Pools keep the order in which they were first stored.
 */
final class SnapshotStore {
  static final Set<String> DEFAULT_GROUPS = Set.of(ControlPlaneProtocol.DEFAULT_GROUP);

  /**
   * A pool's latest frame and the data-plane groups that serve it (for a removal: the groups that
   * served it last).
   */
  record Entry(long version, String frame, boolean removed, Set<String> groups) {}

  private final Map<String, Entry> pools = new LinkedHashMap<>();
  private final LongSupplier clockMillis;

  /**
   * @param clockMillis the wall clock in milliseconds ({@code System::currentTimeMillis})
   */
  SnapshotStore(LongSupplier clockMillis) {
    this.clockMillis = clockMillis;
  }

  /** The pool's latest entry, or null when it was never published nor removed. */
  Entry get(String pool) {
    return pools.get(pool);
  }

  /** The latest version published (or removed) for the pool, 0 when none. */
  long latestVersion(String pool) {
    Entry e = pools.get(pool);
    return e == null ? 0 : e.version();
  }

  /** A version above every one stored for the pool, and at least the clock's milliseconds. */
  long nextVersion(String pool) {
    return Math.max(latestVersion(pool) + 1, clockMillis.getAsLong());
  }

  /**
   * Stores a snapshot's frame as the pool's latest.
   *
   * @return the new entry, or null (nothing stored) when the version is not above the stored one
   */
  Entry publish(String pool, long version, String frame, Set<String> groups) {
    Entry old = pools.get(pool);
    if (old != null && version <= old.version()) {
      return null;
    }
    Entry entry = new Entry(version, frame, false, Set.copyOf(groups));
    pools.put(pool, entry);
    return entry;
  }

  /**
   * Stores the pool's removal at its next version, for the groups that served it (the default group
   * when it was never published).
   */
  Entry remove(String pool) {
    long version = nextVersion(pool);
    String frame = WireCodec.encode(StreamMessage.remove(pool, version));
    Entry old = pools.get(pool);
    Entry entry = new Entry(version, frame, true, old == null ? DEFAULT_GROUPS : old.groups());
    pools.put(pool, entry);
    return entry;
  }

  /** Every pool's latest entry, in the order the pools were first stored; a live view. */
  Map<String, Entry> entries() {
    return Collections.unmodifiableMap(pools);
  }
}
