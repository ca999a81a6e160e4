package dev.replicapool.controlplane;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The connected data planes (in the order they said hello) and, per data plane and pool, the last
 * version it ACKed and its last NACK; from them, each pool's {@link SyncState}.
 *
 * <p>A data plane is known by a key of the caller's (the server uses its connection) with the node
 * name and group its hello gave. Plain Java, no I/O, not thread-safe: the server's lock guards it.
 *
 * @param <K> what identifies one data plane's stream
 */
final class AckLedger<K> {
  private record Nack(long version, String error) {}

  private static final class DataPlane {
    final String node;
    final String group;
    final Map<String, Long> acked = new HashMap<>();
    final Map<String, Nack> nacks = new HashMap<>();

    DataPlane(String node, String group) {
      this.node = node;
      this.group = group;
    }
  }

  private final Map<K, DataPlane> dataPlanes = new LinkedHashMap<>();

  /**
   * Counts {@code key} as the data plane {@code node} of {@code group}, after every other one, with
   * nothing ACKed yet; already known, it keeps its place and what it answered.
   */
  void join(K key, String node, String group) {
    dataPlanes.putIfAbsent(key, new DataPlane(node, group));
  }

  /** Forgets a data plane and its answers; false when it was not known. */
  boolean leave(K key) {
    return dataPlanes.remove(key) != null;
  }

  /** Forgets every data plane of this node name and returns their keys, in their order. */
  List<K> leaveNode(String node) {
    List<K> gone = new ArrayList<>();
    dataPlanes.entrySet().removeIf(e -> e.getValue().node.equals(node) && gone.add(e.getKey()));
    return gone;
  }

  boolean contains(K key) {
    return dataPlanes.containsKey(key);
  }

  /** The known data planes' keys, in the order they joined. */
  Set<K> keys() {
    return dataPlanes.keySet();
  }

  /** Node names of the known data planes, in the order they joined. */
  List<String> nodes() {
    return dataPlanes.values().stream().map(d -> d.node).toList();
  }

  /** Node names of the known data planes of one group, in the order they joined. */
  List<String> nodes(String group) {
    return dataPlanes.values().stream()
        .filter(d -> d.group.equals(group))
        .map(d -> d.node)
        .toList();
  }

  /** Records an ACK; a version below one ACKed before changes nothing. Unknown keys are ignored. */
  void ack(K key, String pool, long version) {
    DataPlane d = dataPlanes.get(key);
    if (d != null && version > d.acked.getOrDefault(pool, 0L)) {
      d.acked.put(pool, version);
    }
  }

  /**
   * Records a NACK, replacing the data plane's earlier one for the pool; it counts until a version
   * at least as new is ACKed. Unknown keys are ignored.
   *
   * @return false when it repeats the data plane's last NACK of the pool (a retry rejected again)
   */
  boolean nack(K key, String pool, long version, String error) {
    DataPlane d = dataPlanes.get(key);
    if (d == null) {
      return false;
    }
    Nack nack = new Nack(version, error);
    return !nack.equals(d.nacks.put(pool, nack));
  }

  /**
   * What the data plane ACKed and still rejects, per pool it answered for, sorted by pool; each
   * {@link ConnectedDataPlane.Pool} without the latest version (the caller knows it). Empty for an
   * unknown key.
   */
  Map<String, ConnectedDataPlane.Pool> answered(K key) {
    DataPlane d = dataPlanes.get(key);
    Map<String, ConnectedDataPlane.Pool> out = new TreeMap<>();
    if (d == null) {
      return out;
    }
    Set<String> pools = new TreeSet<>(d.acked.keySet());
    pools.addAll(d.nacks.keySet());
    for (String pool : pools) {
      long acked = d.acked.getOrDefault(pool, 0L);
      Nack n = d.nacks.get(pool);
      boolean rejected = n != null && n.version() > acked;
      out.put(
          pool,
          new ConnectedDataPlane.Pool(
              acked, 0, rejected ? n.version() : 0, rejected ? n.error() : null));
    }
    return out;
  }

  /**
   * The highest version every known data plane of these groups ACKed (for the pool): the lowest of
   * their ACKed versions, 0 when one of them ACKed nothing yet; empty when no known data plane
   * serves these groups. A NACK counts for nothing here.
   */
  OptionalLong appliedByAll(String pool, Set<String> groups) {
    long lowest = Long.MAX_VALUE;
    for (DataPlane d : dataPlanes.values()) {
      if (groups.contains(d.group)) {
        lowest = Math.min(lowest, d.acked.getOrDefault(pool, 0L));
      }
    }
    return lowest == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(lowest);
  }

  /**
   * How many known data planes of the pool's groups ACKed its latest version, and their NACKs.
   *
   * @param latest the pool's latest version; empty when it was never published nor removed (then no
   *     data plane counts as at the latest version)
   * @param groups the data-plane groups that serve the pool
   */
  SyncState syncState(String pool, OptionalLong latest, Set<String> groups) {
    int total = 0;
    int atLatest = 0;
    List<String> nacks = new ArrayList<>();
    for (DataPlane d : dataPlanes.values()) {
      if (!groups.contains(d.group)) {
        continue;
      }
      total++;
      long acked = d.acked.getOrDefault(pool, 0L);
      if (latest.isPresent() && acked >= latest.getAsLong()) {
        atLatest++;
      }
      Nack n = d.nacks.get(pool);
      if (n != null && n.version() > acked) {
        nacks.add(d.node + ": version " + n.version() + ": " + n.error());
      }
    }
    return new SyncState(total, atLatest, latest.orElse(0), nacks);
  }
}
