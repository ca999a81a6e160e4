package dev.replicapool.bench;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.TableObserver;
import dev.replicapool.testing.ReplicaProcess;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The data plane's routing table as ConvergenceBenchmark watches it: hooked into its ConfigStore,
 * so every applied snapshot is timestamped the moment it is installed and nothing is polled. It
 * records, per member address, when the table stopped admitting it (weight 0, a state other than
 * Healthy or Degraded, or gone from the snapshot), and per applied snapshot the delay from its
 * publication (the version is the operator's publish time in ms) to its installation.
 */
final class TableWatch implements TableObserver {
  private final DataPlane dp;
  // address -> wall ms when the data plane installed a table where it is not admitted
  private final Map<String, Long> removedAt = new ConcurrentHashMap<>();
  private final Map<String, String> removedState = new ConcurrentHashMap<>();
  private final List<Long> publishToApply = new CopyOnWriteArrayList<>();

  /**
   * One kill as the table saw it.
   *
   * @param removedAt wall ms of the first table without it admitted; null when none came in 10 s
   * @param how its state and weight in that table, or {@code gone}
   */
  record Removal(long killedAt, Long removedAt, String how) {
    /** Milliseconds from the kill to the removal, -1 when there was none. */
    long afterKill() {
      return removedAt == null ? -1 : removedAt - killedAt;
    }
  }

  private TableWatch(DataPlane dp) {
    this.dp = dp;
  }

  static TableWatch on(DataPlane dp) {
    TableWatch watch = new TableWatch(dp);
    dp.store().addObserver(watch);
    return watch;
  }

  List<Long> publishToApply() {
    return publishToApply;
  }

  @Override
  public void installed(TableObserver.Change change) {
    long now = System.currentTimeMillis();
    for (PoolRuntime p : change.next().pools().values()) {
      PoolRuntime before = change.previous().pool(p.name());
      if (before != null && before.version() == p.version()) {
        continue;
      }
      long d = now - p.version();
      if (d >= 0 && d < 60_000) {
        publishToApply.add(d);
      }
      if (before != null) {
        markGone(before, p, now);
      }
      markAdmission(p, now);
    }
  }

  /** Members that left the snapshot altogether. */
  private void markGone(PoolRuntime before, PoolRuntime p, long now) {
    Set<String> present = new HashSet<>();
    p.snapshot().members().forEach(m -> present.add(m.address()));
    for (MemberSnapshot m : before.snapshot().members()) {
      if (!present.contains(m.address())) {
        removedAt.putIfAbsent(m.address(), now);
        removedState.putIfAbsent(m.address(), "gone");
      }
    }
  }

  private void markAdmission(PoolRuntime p, long now) {
    for (MemberSnapshot m : p.snapshot().members()) {
      if (!admitted(m)) {
        removedAt.putIfAbsent(m.address(), now);
        removedState.putIfAbsent(m.address(), m.state() + "/w=" + m.weight());
      } else {
        removedAt.remove(m.address());
        removedState.remove(m.address());
      }
    }
  }

  /** SIGKILLs the victim and waits (10 s at most) for a table that no longer admits it. */
  Removal kill(ReplicaProcess victim) throws InterruptedException {
    String addr = victim.address();
    removedAt.remove(addr);
    removedState.remove(addr);
    long t0 = System.currentTimeMillis();
    victim.kill();
    long deadline = t0 + 10_000;
    while (!removedAt.containsKey(addr) && System.currentTimeMillis() < deadline) {
      Thread.sleep(1);
    }
    Long at = removedAt.get(addr);
    return new Removal(t0, at, removedState.get(addr));
  }

  /** Waits until the pool's current snapshot admits exactly {@code n} members. */
  void awaitAdmitted(String pool, int n, long ms) throws InterruptedException {
    long end = System.currentTimeMillis() + ms;
    while (System.currentTimeMillis() < end) {
      PoolRuntime p = dp.store().table().pool(pool);
      if (p != null && p.snapshot().members().stream().filter(TableWatch::admitted).count() == n) {
        return;
      }
      Thread.sleep(5);
    }
    throw new IllegalStateException(pool + " did not reach " + n + " admitted members");
  }

  /** What the data plane routes new requests to: a positive weight, Healthy or Degraded. */
  private static boolean admitted(MemberSnapshot m) {
    return m.weight() > 0
        && (m.state() == MemberState.Healthy || m.state() == MemberState.Degraded);
  }
}
