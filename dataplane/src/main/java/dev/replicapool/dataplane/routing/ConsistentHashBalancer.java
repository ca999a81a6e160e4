package dev.replicapool.dataplane.routing;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.wire.MemberSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ConsistentHash policy: a request's key lands on a slot of the pool's {@link HashTable}
 * (Maglev or ring hash, per {@link HashPolicy}); when that slot's member is no candidate (ejected,
 * not admitted, already tried by this request) the key goes to the next slot's, and so on. Keys of
 * members that can take them never move, and a member's keys come back with it.
 *
 * <p>The table is a function of the snapshot alone, so every data plane with the same snapshot
 * builds the same one: members sorted by "host:port", Healthy ones at their snapshot weight.
 * Degraded and Unhealthy members keep their place at weight 1.0 (what a member of a non-Adaptive
 * pool weighs when healthy): their keys move only while they cannot take them, and the operator's
 * recovery ramp (a Degraded member's weight climbing back, pushed at every step) neither shuffles
 * everybody's keys nor makes two data planes disagree between pushes. Pending and Draining members
 * are not in it. The candidates' effective weight (slow start, panic) does not change the table. A
 * request without a key is balanced by smooth weighted round-robin.
 */
final class ConsistentHashBalancer implements Balancer {
  private final HashPolicy policy;
  private final List<String> addresses;
  private final double[] weights;
  private final HashTable table;
  private final Map<Endpoint, Integer> index;
  private final SmoothWeightedRoundRobin unkeyed;

  private ConsistentHashBalancer(
      HashPolicy policy,
      List<String> addresses,
      double[] weights,
      HashTable table,
      Map<Endpoint, Integer> index,
      SmoothWeightedRoundRobin unkeyed) {
    this.policy = policy;
    this.addresses = addresses;
    this.weights = weights;
    this.table = table;
    this.index = index;
    this.unkeyed = unkeyed;
  }

  /** The balancer of a snapshot; the table of {@code previous} is reused when nothing changed. */
  static ConsistentHashBalancer create(
      HashPolicy policy, List<Endpoint> members, List<MemberSnapshot> snapshot, Balancer previous) {
    List<Integer> inTable = new ArrayList<>();
    for (int i = 0; i < members.size(); i++) {
      if (tableWeight(snapshot.get(i)) > 0) {
        inTable.add(i);
      }
    }
    inTable.sort(Comparator.comparing(i -> members.get(i).address()));
    List<String> addresses = new ArrayList<>(inTable.size());
    double[] weights = new double[inTable.size()];
    Map<Endpoint, Integer> index = new HashMap<>(inTable.size() * 2);
    for (int k = 0; k < inTable.size(); k++) {
      Endpoint e = members.get(inTable.get(k));
      addresses.add(e.address());
      weights[k] = tableWeight(snapshot.get(inTable.get(k)));
      index.put(e, k);
    }
    ConsistentHashBalancer before = previous instanceof ConsistentHashBalancer c ? c : null;
    HashTable table =
        before != null
                && before.policy.algorithm() == policy.algorithm()
                && before.addresses.equals(addresses)
                && Arrays.equals(before.weights, weights)
            ? before.table
            : policy.table(addresses, weights);
    SmoothWeightedRoundRobin rotation =
        before != null ? before.unkeyed : previous instanceof SmoothWeightedRoundRobin s ? s : null;
    return new ConsistentHashBalancer(
        policy,
        List.copyOf(addresses),
        weights,
        table,
        index,
        new SmoothWeightedRoundRobin(rotation, members));
  }

  /** A member's weight in the table: see the class comment. */
  static double tableWeight(MemberSnapshot m) {
    if (m.state() == MemberState.Healthy) {
      return m.weight();
    }
    return m.state() == MemberState.Degraded || m.state() == MemberState.Unhealthy ? 1.0 : 0.0;
  }

  @Override
  public Endpoint pick(List<Endpoint> candidates, long nowNanos) {
    return unkeyed.pick(candidates, nowNanos);
  }

  @Override
  public Endpoint pick(List<Endpoint> candidates, long key, long nowNanos) {
    if (key == HashKey.NONE || table.slots() == 0) {
      return unkeyed.pick(candidates, nowNanos);
    }
    Endpoint[] allowed = new Endpoint[addresses.size()];
    boolean any = false;
    for (int n = 0; n < candidates.size(); n++) {
      Endpoint c = candidates.get(n);
      Integer i = index.get(c);
      if (i != null) {
        allowed[i] = c;
        any = true;
      }
    }
    if (any) {
      int slots = table.slots();
      int start = table.slot(key);
      for (int step = 0; step < slots; step++) {
        Endpoint e = allowed[table.member((start + step) % slots)];
        if (e != null) {
          return e;
        }
      }
    }
    // Only candidates outside the table (panic routes to members that have no place in it).
    return unkeyed.pick(candidates, nowNanos);
  }

  /** The table member a key lands on first, whoever can take requests ("host:port"). */
  String owner(long key) {
    return table.slots() == 0 ? null : addresses.get(table.member(table.slot(key)));
  }

  HashTable table() {
    return table;
  }
}
