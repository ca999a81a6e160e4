package dev.replicapool.dataplane.admin;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.TableObserver;
import dev.replicapool.dataplane.routing.Endpoint;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The meters of each member of the routing table: the timers of its tries by outcome ({@code
 * replicapool_upstream_seconds{pool,member,outcome}}) and its ejection counter ({@code
 * replicapool_ejections_total{pool,member}}). A member has meters only while it is in the table:
 * {@link #follow} gives each new member a meter map and hands back those of the members that left,
 * which {@link DataPlaneMetrics} removes from the registry off the swap's path.
 */
final class MemberMeters {
  private final MeterRegistry registry;
  // Endpoint has identity equality: one entry per member object of the table.
  private final Map<Endpoint, Map<String, Meter>> byMember = new ConcurrentHashMap<>();

  MemberMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  /** One try of {@code pool} on {@code member} ended with {@code outcome} after {@code nanos}. */
  void attempt(String pool, Endpoint member, String outcome, long nanos) {
    Map<String, Meter> m = byMember.get(member);
    if (m == null) {
      return; // a request that outlived its member's removal
    }
    // Keyed by the outcome itself ("2xx", "reset", ...), which no other meter of a member uses.
    // Looked up first: computeIfAbsent's capturing lambda would be allocated on every try.
    Timer t = (Timer) m.get(outcome);
    if (t == null) {
      t =
          (Timer)
              m.computeIfAbsent(
                  outcome,
                  k ->
                      Timer.builder("replicapool.upstream")
                          .description("Tries on a member, to response headers or failure")
                          .tags("pool", pool, "member", member.address(), "outcome", outcome)
                          .serviceLevelObjectives(LatencyBuckets.BOUNDS)
                          .register(registry));
    }
    t.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** This data plane ejected {@code member} of {@code pool}. */
  void ejected(String pool, Endpoint member) {
    Map<String, Meter> m = byMember.get(member);
    if (m == null) {
      return; // no longer in the table
    }
    Counter c =
        (Counter)
            m.computeIfAbsent(
                "ejections",
                k ->
                    Counter.builder("replicapool.ejections")
                        .description("Passive ejections of a member by this data plane")
                        .tags("pool", pool, "member", member.address())
                        .register(registry));
    c.increment();
  }

  /**
   * Follows one swap: forgets the members that left the changed pools, then gives every member of
   * those pools a map if it has none. Members leave first, so that a member that comes back under
   * the same name gets meters of its own rather than those about to be removed.
   *
   * @return the meter maps of the members that left, for removal from the registry
   */
  List<Map<String, Meter>> follow(TableObserver.Change change) {
    List<Map<String, Meter>> gone = new ArrayList<>();
    for (String name : change.pools()) {
      PoolRuntime before = change.previous().pool(name);
      PoolRuntime now = change.next().pool(name);
      if (before != null && before != now) {
        forgetLeft(before, now, gone);
      }
    }
    addMaps(change);
    return gone;
  }

  /**
   * Drops the maps of the endpoints of {@code before} that {@code now} (null: the pool is gone) no
   * longer holds, and collects them in {@code gone}.
   */
  private void forgetLeft(PoolRuntime before, PoolRuntime now, List<Map<String, Meter>> gone) {
    Set<Endpoint> kept = Collections.newSetFromMap(new IdentityHashMap<>());
    if (now != null) {
      kept.addAll(now.router().endpoints());
    }
    for (Endpoint e : before.router().endpoints()) {
      if (!kept.contains(e)) {
        Map<String, Meter> left = byMember.remove(e);
        // Empty or not: an event loop that looked the map up before this removal may still add
        // a meter to it; the removal, running later, removes that one too.
        if (left != null) {
          gone.add(left);
        }
      }
    }
  }

  /** A map for every endpoint of the changed pools that has none yet. */
  private void addMaps(TableObserver.Change change) {
    for (String name : change.pools()) {
      PoolRuntime now = change.next().pool(name);
      if (now != null) {
        for (Endpoint e : now.router().endpoints()) {
          byMember.computeIfAbsent(e, k -> new ConcurrentHashMap<>());
        }
      }
    }
  }
}
