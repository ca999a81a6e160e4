package dev.replicapool.controlplane;

import dev.replicapool.api.wire.StreamMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who gets which frame, and who counts for a pool: the pools' latest frames ({@link
 * SnapshotStore}), the admitted connections with what each acknowledged ({@link AckLedger}) and
 * what each was sent, under one lock, since every decision reads all of them at once. Tells the
 * {@link ControlPlaneServer#onSyncChange} listeners, outside the lock, each pool whose {@link
 * SyncState} a change moved, and the {@link #onConvergence} listeners each version every serving
 * data plane applied ({@link PushConvergence}). Rejected snapshots are sent again through {@link
 * RejectedResend}.
 *
 * <p>About 350 lines: every method that takes the lock is here, so that what it guards stays in one
 * place; the decisions are in the parts named above.
 */
final class StreamHub {
  private static final Logger log = LoggerFactory.getLogger(ControlPlaneServer.class);
  private static final String SYNCED_FRAME = WireCodec.encode(StreamMessage.synced(true));
  private static final String SYNCED_INCOMPLETE_FRAME =
      WireCodec.encode(StreamMessage.synced(false));

  /**
   * A hello that admitted a connection: the older streams of its node it replaced (to be closed)
   * and every pool's sync state before and after.
   */
  record Admission(
      List<DataPlaneConnection> replaced,
      Map<String, SyncState> before,
      Map<String, SyncState> after) {}

  private final Object lock = new Object();
  private final LongSupplier clockMillis;
  private final SnapshotStore store;

  private final RejectedResend resend = new RejectedResend();

  private final AckLedger<DataPlaneConnection> ledger = new AckLedger<>();
  private final PushConvergence<DataPlaneConnection> convergence;
  private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<Convergence>> convergenceListeners = new CopyOnWriteArrayList<>();
  private boolean initialSyncDone;
  private boolean everyPoolPublished;

  /**
   * @param clockMillis wall clock (versions, admission and answer times)
   * @param nanos monotonic clock of the publishes' triggers ({@link System#nanoTime()})
   */
  StreamHub(LongSupplier clockMillis, LongSupplier nanos) {
    this.clockMillis = clockMillis;
    this.store = new SnapshotStore(clockMillis);
    this.convergence = new PushConvergence<>(ledger, nanos);
  }

  void onSyncChange(Consumer<String> listener) {
    listeners.add(Objects.requireNonNull(listener));
  }

  void onConvergence(Consumer<Convergence> listener) {
    convergenceListeners.add(Objects.requireNonNull(listener));
  }

  /** The pool's last converged version and how long it took; empty before the first. */
  java.util.Optional<Convergence> lastConvergence(String pool) {
    synchronized (lock) {
      return convergence.last(pool);
    }
  }

  /** Sends {@code synced} to every data plane now, and to each that is admitted later. */
  void markInitialSyncDone(boolean everyPoolPublished) {
    synchronized (lock) {
      if (initialSyncDone) {
        return;
      }
      initialSyncDone = true;
      this.everyPoolPublished = everyPoolPublished;
      for (DataPlaneConnection c : ledger.keys()) {
        c.write(syncedFrame());
      }
    }
  }

  private String syncedFrame() {
    return everyPoolPublished ? SYNCED_FRAME : SYNCED_INCOMPLETE_FRAME;
  }

  long nextVersion(String pool) {
    synchronized (lock) {
      return store.nextVersion(pool);
    }
  }

  long latestVersion(String pool) {
    synchronized (lock) {
      return store.latestVersion(pool);
    }
  }

  /**
   * Stores the frame as the pool's latest and sends it to the connections of these groups; one of
   * another group that holds the pool is told to remove it (at this version).
   *
   * @param triggerNanos when the change this version carries was seen ({@link System#nanoTime()})
   * @return false (nothing stored or sent) when the version is not above the pool's last one
   */
  boolean publish(
      String pool,
      long version,
      String frame,
      Set<String> groups,
      RouteClaims claims,
      long triggerNanos) {
    synchronized (lock) {
      SnapshotStore.Entry old = store.get(pool);
      SnapshotStore.Entry entry = store.publish(pool, version, frame, groups);
      if (entry == null) {
        log.warn(
            "not publishing {} version {}: version {} was already published",
            pool,
            version,
            old.version());
        return false;
      }
      resend.replaced(pool, claims, ledger.keys());
      convergence.published(pool, version, entry.groups(), triggerNanos);
      String removal = null;
      for (DataPlaneConnection c : ledger.keys()) {
        if (entry.groups().contains(c.group)) {
          c.send(entry, pool);
        } else if (c.holding.remove(pool)) {
          if (removal == null) {
            removal = WireCodec.encode(StreamMessage.remove(pool, version));
          }
          c.write(removal);
        }
      }
      return true;
    }
  }

  /** Stores the pool's removal and sends it to the connections of its groups or holding it. */
  long remove(String pool) {
    synchronized (lock) {
      SnapshotStore.Entry entry = store.remove(pool);
      resend.replaced(pool, RouteClaims.NONE, ledger.keys());
      convergence.removed(pool);
      for (DataPlaneConnection c : ledger.keys()) {
        if (entry.groups().contains(c.group) || c.holding.contains(pool)) {
          c.send(entry, pool);
        }
      }
      return entry.version();
    }
  }

  /** Pools whose latest entry is a snapshot, not a removal. */
  Set<String> publishedPools() {
    synchronized (lock) {
      Set<String> live = new TreeSet<>();
      store
          .entries()
          .forEach(
              (pool, e) -> {
                if (!e.removed()) {
                  live.add(pool);
                }
              });
      return live;
    }
  }

  SyncState syncState(String pool) {
    synchronized (lock) {
      return syncStateLocked(pool);
    }
  }

  List<String> dataPlanes() {
    synchronized (lock) {
      return ledger.nodes();
    }
  }

  List<String> dataPlanes(String group) {
    synchronized (lock) {
      return ledger.nodes(group);
    }
  }

  /**
   * The admitted data planes, in the order they said hello: each with every pool it was sent or
   * answered for, what it applied, what it rejects, and its last answer.
   */
  List<ConnectedDataPlane> connected() {
    synchronized (lock) {
      List<ConnectedDataPlane> out = new ArrayList<>();
      for (DataPlaneConnection c : ledger.keys()) {
        Map<String, ConnectedDataPlane.Pool> pools = new TreeMap<>();
        Map<String, ConnectedDataPlane.Pool> answered = ledger.answered(c);
        Set<String> names = new TreeSet<>(answered.keySet());
        names.addAll(c.holding);
        for (String pool : names) {
          ConnectedDataPlane.Pool a =
              answered.getOrDefault(pool, new ConnectedDataPlane.Pool(0, 0, 0, null));
          SnapshotStore.Entry latest = store.get(pool);
          pools.put(
              pool,
              new ConnectedDataPlane.Pool(
                  a.appliedVersion(),
                  latest == null ? 0 : latest.version(),
                  a.rejectedVersion(),
                  a.rejectedReason()));
        }
        out.add(
            new ConnectedDataPlane(
                c.node,
                c.group,
                c.remote,
                Instant.ofEpochMilli(c.admittedMillis),
                pools,
                c.lastAnswer));
      }
      return out;
    }
  }

  /**
   * Counts the connection as the data plane {@code node} of {@code group}, in place of any older
   * stream of the same node, and sends it every frame of its group (then {@code synced}, once
   * declared).
   *
   * @return null when it is closed or said hello before (then it is closed)
   */
  Admission admit(DataPlaneConnection c, String node, String group) {
    synchronized (lock) {
      if (c.closed || c.node != null) {
        if (!c.closed) {
          c.close((short) 1008, "hello twice");
        }
        return null;
      }
      Map<String, SyncState> before = statesLocked();
      c.node = node;
      c.group = group;
      c.admittedMillis = clockMillis.getAsLong();
      // One connection per node: a data plane that redials before this server noticed its old
      // stream died must not count twice in DataPlaneSynced. The newer stream wins.
      List<DataPlaneConnection> replaced = ledger.leaveNode(node);
      replaced.forEach(old -> old.closed = true);
      ledger.join(c, node, group);
      convergence.dataPlanesChanged();
      store
          .entries()
          .forEach(
              (pool, entry) -> {
                if (entry.groups().contains(group)) {
                  c.send(entry, pool);
                }
              });
      if (initialSyncDone) {
        c.write(syncedFrame());
      }
      return new Admission(replaced, before, statesLocked());
    }
  }

  /** Tells the listeners the pools whose sync state the admission moved. */
  void announce(Admission a) {
    fireChanges(a.before(), a.after());
  }

  /**
   * Records an admitted connection's ACK or NACK; one about a pool this server does not know, or
   * from a stream no longer counted, changes nothing.
   */
  void answer(DataPlaneConnection c, StreamMessage m) {
    String pool = m.pool();
    long version = m.version();
    SyncState before;
    SyncState after;
    List<Convergence> converged = List.of();
    synchronized (lock) {
      if (c.closed || !ledger.contains(c) || store.get(pool) == null) {
        return;
      }
      before = syncStateLocked(pool);
      SnapshotStore.Entry latest = store.get(pool);
      long now = clockMillis.getAsLong();
      if (m.type() == StreamMessage.Type.ack) {
        ledger.ack(c, pool, version);
        converged = convergence.acked(pool);
        resend.acked(c, pool, version, latest, now);
        c.lastAnswer =
            new ConnectedDataPlane.Answer(pool, version, true, null, Instant.ofEpochMilli(now));
      } else {
        String error = UntrustedText.sanitize(m.error());
        c.lastAnswer =
            new ConnectedDataPlane.Answer(pool, version, false, error, Instant.ofEpochMilli(now));
        if (ledger.nack(c, pool, version, error)) {
          log.warn("data plane {} rejected {} version {}: {}", c.node, pool, version, error);
        }
        resend.nacked(c, pool, version, latest, now);
      }
      resend.sendDue(c, store, now);
      after = syncStateLocked(pool);
    }
    for (Convergence done : converged) {
      for (Consumer<Convergence> l : convergenceListeners) {
        try {
          l.accept(done);
        } catch (RuntimeException e) {
          log.warn("convergence listener failed for {}", pool, e);
        }
      }
    }
    if (!before.equals(after)) {
      fire(pool);
    }
  }

  /** Sends every data plane the rejected pools whose retry is due (called on a timer). */
  void retryRejected() {
    synchronized (lock) {
      long now = clockMillis.getAsLong();
      for (DataPlaneConnection c : ledger.keys()) {
        if (!c.closed) {
          resend.sendDue(c, store, now);
        }
      }
    }
  }

  /** The connection closed: it no longer counts for any pool. */
  void disconnected(DataPlaneConnection c) {
    Map<String, SyncState> before;
    Map<String, SyncState> after;
    synchronized (lock) {
      c.closed = true;
      if (!ledger.contains(c)) {
        return;
      }
      before = statesLocked();
      ledger.leave(c);
      convergence.dataPlanesChanged();
      after = statesLocked();
    }
    log.info("data plane {} disconnected ({})", c.node, c.remote);
    fireChanges(before, after);
  }

  private SyncState syncStateLocked(String pool) {
    SnapshotStore.Entry e = store.get(pool);
    return e == null
        ? ledger.syncState(pool, OptionalLong.empty(), SnapshotStore.DEFAULT_GROUPS)
        : ledger.syncState(pool, OptionalLong.of(e.version()), e.groups());
  }

  private Map<String, SyncState> statesLocked() {
    Map<String, SyncState> states = new TreeMap<>();
    for (String p : store.entries().keySet()) {
      states.put(p, syncStateLocked(p));
    }
    return states;
  }

  private void fireChanges(Map<String, SyncState> before, Map<String, SyncState> after) {
    for (Map.Entry<String, SyncState> e : after.entrySet()) {
      if (!e.getValue().equals(before.get(e.getKey()))) {
        fire(e.getKey());
      }
    }
  }

  private void fire(String pool) {
    for (Consumer<String> l : listeners) {
      try {
        l.accept(pool);
      } catch (RuntimeException e) {
        log.warn("sync listener failed for {}", pool, e);
      }
    }
  }
}
