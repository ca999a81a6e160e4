package dev.replicapool.controlplane;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * When each published version of a pool converged: from its trigger (the moment the operator saw
 * the change that made it: a probe result, a Pod or Lease event, the reconcile that noticed a Lease
 * expiry) to the ACK after which every data plane serving the pool (connected, of one of the pool's
 * groups) has applied that version or a later one. The {@link AckLedger} says what each data plane
 * ACKed; this class only keeps the versions still waiting and their triggers.
 *
 * <p>What counts, and why:
 *
 * <ul>
 *   <li>One observation per version, each from its own trigger. A version superseded before it
 *       converged (v1, then v2 while a data plane still applies v1) is observed when a later one
 *       converges, from its own trigger: a snapshot is the pool's whole state, so a data plane that
 *       applies v2 applies v1's change too. We walk the waiting versions from the earliest
 *       unobserved trigger up to the version every data plane applied, rather than observing once
 *       per ACK from the earliest trigger: that way every change the operator made is counted once
 *       ({@code _count} counts changes) and each figure is how long that change took to reach every
 *       data plane, the way pilot_proxy_convergence_time counts pushes.
 *   <li>Only an ACK converges a pool. A NACK changes nothing: the pool converges when the data
 *       plane that refused applies a version at least as new (usually the latest, sent again). When
 *       a data plane disconnects, or a new group set leaves it out, or no data plane serves the
 *       pool at all, the versions every remaining one applied are dropped unobserved: nobody
 *       applied anything at that moment, and a figure taken then would measure how long the laggard
 *       took to leave. A data plane that joins counts from then on: waiting versions also wait for
 *       it.
 *   <li>Bounded: at most {@link #MAX_PENDING} versions wait per pool; beyond that the oldest is
 *       dropped unobserved (a data plane refusing for hours while members flap). They would all be
 *       in the histogram's last bucket anyway. A removed pool is forgotten.
 * </ul>
 *
 * <p>Plain Java, no I/O, not thread-safe: the server's lock guards it with the ledger.
 *
 * @param <K> what identifies one data plane's stream in the ledger
 */
final class PushConvergence<K> {
  /** Versions of one pool kept waiting at most. */
  static final int MAX_PENDING = 256;

  private record Pending(long version, long triggerNanos) {}

  private static final class Pool {
    /** Ascending by version: the server accepts only growing versions. */
    final ArrayDeque<Pending> pending = new ArrayDeque<>();

    Set<String> groups = Set.of();
    Convergence last;
  }

  private final AckLedger<K> ledger;
  private final LongSupplier nanos;
  private final Map<String, Pool> pools = new HashMap<>();

  /**
   * @param nanos the clock the triggers are read on ({@link System#nanoTime()} in the server)
   */
  PushConvergence(AckLedger<K> ledger, LongSupplier nanos) {
    this.ledger = ledger;
    this.nanos = nanos;
  }

  /**
   * A version was published for these groups: it waits for every data plane serving them. Versions
   * the new group set no longer waits for (the laggard is not in it) are dropped unobserved, and so
   * is everything when no data plane serves the pool.
   */
  void published(String pool, long version, Set<String> groups, long triggerNanos) {
    Pool p = pools.computeIfAbsent(pool, k -> new Pool());
    p.groups = Set.copyOf(groups);
    p.pending.addLast(new Pending(version, triggerNanos));
    while (p.pending.size() > MAX_PENDING) {
      p.pending.removeFirst();
    }
    settle(pool, p);
  }

  /**
   * A data plane ACKed a version of the pool (already in the ledger): the versions every serving
   * data plane now runs converged, each observed once, oldest first.
   */
  List<Convergence> acked(String pool) {
    Pool p = pools.get(pool);
    if (p == null || p.pending.isEmpty()) {
      return List.of();
    }
    OptionalLong all = ledger.appliedByAll(pool, p.groups);
    if (all.isEmpty()) {
      p.pending.clear(); // an ACK from a data plane of another group; nobody serves the pool
      return List.of();
    }
    long now = nanos.getAsLong();
    List<Convergence> out = new ArrayList<>();
    while (!p.pending.isEmpty() && p.pending.peekFirst().version() <= all.getAsLong()) {
      Pending v = p.pending.removeFirst();
      long took = Math.max(0, now - v.triggerNanos());
      p.last = new Convergence(pool, v.version(), took);
      out.add(p.last);
    }
    return out;
  }

  /** Data planes joined or left: drops, unobserved, what no remaining data plane still lacks. */
  void dataPlanesChanged() {
    pools.forEach(this::settle);
  }

  /** The pool was removed: nothing of it waits any more. */
  void removed(String pool) {
    pools.remove(pool);
  }

  /** The pool's last converged version and how long it took; empty before the first. */
  Optional<Convergence> last(String pool) {
    Pool p = pools.get(pool);
    return Optional.ofNullable(p == null ? null : p.last);
  }

  /** How long the pool's last converged version took; empty before the first. */
  OptionalLong lastNanos(String pool) {
    return last(pool).map(c -> OptionalLong.of(c.nanos())).orElse(OptionalLong.empty());
  }

  /** Versions of the pool still waiting (tests). */
  int pending(String pool) {
    Pool p = pools.get(pool);
    return p == null ? 0 : p.pending.size();
  }

  private void settle(String pool, Pool p) {
    OptionalLong all = ledger.appliedByAll(pool, p.groups);
    long upTo = all.isEmpty() ? Long.MAX_VALUE : all.getAsLong();
    p.pending.removeIf(v -> v.version() <= upTo);
  }
}
