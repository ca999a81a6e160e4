package dev.replicapool.controlplane;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link StreamHub}'s part that sends data planes the snapshots they rejected again: it knows
 * the Host names and port of every pool's latest version, notes what each data plane ACKed and
 * rejected in that connection's {@link NackRetry}, and sends the rounds that are due. Guarded by
 * the hub's lock, like the rest of the hub's state.
 */
final class RejectedResend {
  private static final Logger log = LoggerFactory.getLogger(ControlPlaneServer.class);

  /** The Host names and port of each pool's latest version (none for a removal). */
  private final Map<String, RouteClaims> latestClaims = new HashMap<>();

  /** A new version or the removal of the pool: it replaces any version a data plane rejected. */
  void replaced(String pool, RouteClaims claims, Iterable<DataPlaneConnection> connections) {
    latestClaims.put(pool, claims);
    for (DataPlaneConnection c : connections) {
      c.retry.settled(pool);
    }
  }

  /**
   * Notes what a data plane now runs of a pool; when that gave up a host or port (the pool moved
   * off it, or was removed), what the data plane rejected may fit now and is due again at once.
   */
  void acked(
      DataPlaneConnection c, String pool, long version, SnapshotStore.Entry latest, long now) {
    if (version >= latest.version()) {
      c.retry.settled(pool);
    }
    // An older version's claims are not kept: count it as giving up what was there.
    RouteClaims claims = version == latest.version() ? latestClaims.get(pool) : null;
    RouteClaims before =
        claims == null || claims.equals(RouteClaims.NONE)
            ? c.claims.remove(pool)
            : c.claims.put(pool, claims);
    if (before != null && (claims == null || before.givesUpFor(claims))) {
      c.retry.freed(now);
    }
  }

  /** A data plane rejected a version; only the latest one is worth sending again. */
  void nacked(
      DataPlaneConnection c, String pool, long version, SnapshotStore.Entry latest, long now) {
    if (version == latest.version() && !latest.removed()) {
      c.retry.rejected(pool, now);
    }
  }

  /** Sends again, together, the pools a data plane rejected, when their round is due. */
  void sendDue(DataPlaneConnection c, SnapshotStore store, long now) {
    Set<String> due = c.retry.due(now);
    if (due.isEmpty()) {
      return;
    }
    int sent = 0;
    for (String pool : due) {
      SnapshotStore.Entry e = store.get(pool);
      if (e == null || e.removed() || !e.groups().contains(c.group)) {
        c.retry.settled(pool);
        continue;
      }
      c.send(e, pool);
      sent++;
    }
    if (sent > 0) {
      // Debug: a rejection that never heals is resent every few seconds; its NACK was logged once.
      log.debug("sending data plane {} again {} pool(s) it rejected: {}", c.node, sent, due);
    }
  }
}
