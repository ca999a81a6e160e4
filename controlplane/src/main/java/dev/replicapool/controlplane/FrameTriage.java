package dev.replicapool.controlplane;

import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.StreamMessage;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides what becomes of a {@code snapshot} or {@code remove} frame before the applier sees it:
 * answered at once (an older version NACKed, the applied one ACKed again, an invalid snapshot
 * NACKed, a frame without a pool dropped) or handed on as a change to apply. Plain Java, no I/O.
 */
final class FrameTriage {
  private static final Logger log = LoggerFactory.getLogger(ControlPlaneClient.class);

  /**
   * A frame's fate: answered at once ({@code answer}, null for no answer), or a change to apply.
   */
  record Fate(StreamMessage answer, SnapshotApplier.Change change) {
    static Fate answer(StreamMessage answer) {
      return new Fate(answer, null);
    }

    static Fate apply(SnapshotApplier.Change change) {
      return new Fate(null, change);
    }
  }

  private final AppliedVersions applied;

  FrameTriage(AppliedVersions applied) {
    this.applied = applied;
  }

  /** The fate of a {@code snapshot} or {@code remove} frame. */
  Fate judge(StreamMessage m) {
    return m.type() == StreamMessage.Type.snapshot ? snapshot(m) : remove(m);
  }

  private Fate snapshot(StreamMessage m) {
    PoolSnapshot s = m.snapshot();
    if (s == null) {
      return Fate.answer(nack(m, "snapshot frame without a snapshot"));
    }
    if (m.pool() != null && !m.pool().equals(s.pool())) {
      return Fate.answer(
          StreamMessage.nack(m.pool(), s.version(), "frame pool differs from snapshot pool"));
    }
    String pool = s.pool();
    long version = s.version();
    if (pool == null) {
      log.warn("ignoring a snapshot without a pool name");
      return Fate.answer(null);
    }
    StreamMessage known = notNew(pool, version, "version ", "; ignored");
    if (known != null) {
      return Fate.answer(known);
    }
    List<String> problems = s.problems();
    if (!problems.isEmpty()) {
      return Fate.answer(
          StreamMessage.nack(pool, version, "invalid snapshot: " + String.join("; ", problems)));
    }
    return Fate.apply(SnapshotApplier.Change.apply(s));
  }

  private Fate remove(StreamMessage m) {
    if (m.pool() == null || m.version() == null) {
      log.warn("ignoring a remove frame without pool or version");
      return Fate.answer(null);
    }
    String pool = m.pool();
    long version = m.version();
    StreamMessage known = notNew(pool, version, "removal version ", "");
    return known != null
        ? Fate.answer(known)
        : Fate.apply(SnapshotApplier.Change.remove(pool, version));
  }

  /** The answer to a version that is not above the applied one, or null when it is. */
  private StreamMessage notNew(String pool, long version, String what, String tail) {
    return switch (applied.judge(pool, version)) {
      case OLDER ->
          StreamMessage.nack(
              pool,
              version,
              what
                  + version
                  + " is older than the applied version "
                  + applied.applied(pool).getAsLong()
                  + tail);
      case SAME -> StreamMessage.ack(pool, version);
      case NEWER -> null;
    };
  }

  private static StreamMessage nack(StreamMessage m, String error) {
    if (m.pool() == null) {
      return null; // nothing to answer about: the operator never sends such frames
    }
    return StreamMessage.nack(m.pool(), m.version() == null ? 0 : m.version(), error);
  }
}
