package dev.replicapool.dataplane.config;

import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.controlplane.SnapshotApplier;
import dev.replicapool.controlplane.SnapshotApplier.Change;
import dev.replicapool.dataplane.routing.EjectionEvents;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The data plane's routing table, swapped atomically as snapshots arrive. Each change is checked
 * ({@link SnapshotValidator}: duplicate members, host names, ports the data plane itself uses),
 * made into a pool ({@link PoolRuntimeFactory}: TLS material that does not load) and put in the new
 * table ({@link RoutingTable.Editor}: hosts or ports claimed by another pool); then its {@link
 * TableObserver}s prepare (bind a port, load a certificate) before the swap. Any failure is a NACK
 * and the previous table keeps serving.
 *
 * <p>Applies run one batch at a time in arrival order; {@link #table()} is lock-free for the proxy.
 */
public final class ConfigStore implements SnapshotApplier {
  private volatile Set<Integer> reservedPorts;
  private final PoolRuntimeFactory pools;
  private final AtomicReference<RoutingTable> table = new AtomicReference<>(RoutingTable.EMPTY);
  private final List<TableObserver> observers = new CopyOnWriteArrayList<>();
  private volatile boolean firstApplied;
  private volatile boolean controlPlaneSynced;
  private Future<Void> tail = Future.succeededFuture();

  /**
   * @param reservedPorts ports of the data plane itself (traffic, TLS, admin) no pool may claim
   * @param clock nanosecond clock for routing decisions
   * @param randoms a Random for each new pool router
   * @param events ejection events of a pool (for metrics)
   */
  public ConfigStore(
      Vertx vertx,
      Set<Integer> reservedPorts,
      LongSupplier clock,
      Supplier<Random> randoms,
      Function<String, EjectionEvents> events) {
    this.reservedPorts = Set.copyOf(reservedPorts);
    this.pools = new PoolRuntimeFactory(Objects.requireNonNull(vertx), clock, randoms, events);
  }

  /** Ports of the data plane itself, known once its listeners are bound. */
  public void reservePorts(Set<Integer> ports) {
    this.reservedPorts = Set.copyOf(ports);
  }

  /** The idle timeout of pools that set none (the data plane's --upstream-timeout-ms). */
  public void defaultIdleTimeoutMillis(long millis) {
    pools.defaultIdleTimeoutMillis(millis);
  }

  public void addObserver(TableObserver observer) {
    observers.add(observer);
  }

  /** The table in force. */
  public RoutingTable table() {
    return table.get();
  }

  /** True once a snapshot has been applied. */
  public boolean firstSnapshotApplied() {
    return firstApplied;
  }

  /**
   * The data plane's readiness: a snapshot was applied, or the control plane said it sent
   * everything it has (which may be no pool at all).
   */
  public boolean ready() {
    return firstApplied || controlPlaneSynced;
  }

  @Override
  public void synced() {
    controlPlaneSynced = true;
  }

  @Override
  public Future<Void> apply(PoolSnapshot snapshot) {
    return applyAll(List.of(Change.apply(snapshot))).get(0);
  }

  @Override
  public Future<Void> remove(String pool, long version) {
    return applyAll(List.of(Change.remove(pool, version))).get(0);
  }

  /**
   * Applies a burst of changes with one table swap. The changes are judged together ({@link
   * #stageTogether}): a host or port that one pool of the burst gives up can go to another whatever
   * their order, and two pools that swap hosts apply together. One that fails is NACKed alone. If
   * an observer refuses the combined swap (a port that will not bind), the changes are retried one
   * swap each, so that only the culprit is refused.
   */
  @Override
  public List<Future<Void>> applyAll(List<Change> changes) {
    List<Promise<Void>> promises = new ArrayList<>(changes.size());
    for (int i = 0; i < changes.size(); i++) {
      promises.add(Promise.promise());
    }
    serialized(() -> applyBatch(changes, promises));
    List<Future<Void>> futures = new ArrayList<>(promises.size());
    promises.forEach(p -> futures.add(p.future()));
    return futures;
  }

  private synchronized void serialized(Supplier<Future<Void>> work) {
    tail =
        tail.transform(
                ar -> {
                  try {
                    return work.get();
                  } catch (RuntimeException e) {
                    return Future.failedFuture(e);
                  }
                })
            .otherwiseEmpty();
  }

  /** The changes of a batch that fit together, in the editor that holds them. */
  private record Staged(RoutingTable.Editor editor, List<Integer> accepted, Set<String> changed) {}

  /** Completes every promise; the returned future completes when all are. */
  private Future<Void> applyBatch(List<Change> changes, List<Promise<Void>> promises) {
    RoutingTable current = table.get();
    Map<Integer, String> refused = new HashMap<>();
    Staged staged = stageTogether(current, changes, refused);
    refused.forEach((i, reason) -> promises.get(i).fail(reason));
    List<Integer> accepted = staged.accepted();
    if (staged.changed().isEmpty()) {
      accepted.forEach(i -> promises.get(i).complete());
      return Future.succeededFuture();
    }
    RoutingTable next = staged.editor().build();
    return install(new TableObserver.Change(current, next, Set.copyOf(staged.changed())))
        .transform(
            ar -> {
              if (ar.succeeded()) {
                accepted.forEach(i -> promises.get(i).complete());
                return Future.succeededFuture();
              }
              if (accepted.size() == 1) {
                promises.get(accepted.get(0)).fail(ar.cause().getMessage());
                return Future.succeededFuture();
              }
              return applyOneByOne(changes, promises, accepted);
            });
  }

  /**
   * Stages the changes as one: every pool of the batch first gives up its hosts and port, then each
   * change takes its own. A change that does not fit is refused (its reason put in {@code refused})
   * and the rest staged again from the table without it, its pool keeping what it had, which may
   * refuse another; the set only shrinks, so this ends, usually after one round.
   */
  private Staged stageTogether(
      RoutingTable current, List<Change> changes, Map<Integer, String> refused) {
    Map<Integer, PoolRuntime> built = new HashMap<>();
    while (true) {
      RoutingTable.Editor editor = current.edit();
      List<Integer> trying = new ArrayList<>();
      for (int i = 0; i < changes.size(); i++) {
        if (!refused.containsKey(i)) {
          trying.add(i);
          editor.remove(changes.get(i).pool());
        }
      }
      Set<String> changed = new LinkedHashSet<>();
      List<Integer> accepted = new ArrayList<>();
      for (int i : trying) {
        Change c = changes.get(i);
        try {
          if (stage(editor, current.pool(c.pool()), c, built, i)) {
            changed.add(c.pool());
          }
          accepted.add(i);
        } catch (IllegalArgumentException e) {
          refused.put(i, e.getMessage());
        } catch (RuntimeException e) {
          refused.put(i, "data plane failed to apply: " + e);
        }
      }
      if (accepted.size() == trying.size()) {
        return new Staged(editor, accepted, changed);
      }
    }
  }

  /** Which of the accepted changes did an observer refuse? One swap each tells. */
  private Future<Void> applyOneByOne(
      List<Change> changes, List<Promise<Void>> promises, List<Integer> accepted) {
    Future<Void> oneByOne = Future.succeededFuture();
    for (int i : accepted) {
      oneByOne =
          oneByOne.transform(x -> applyBatch(List.of(changes.get(i)), List.of(promises.get(i))));
    }
    return oneByOne;
  }

  /**
   * Checks one change and makes it in the editor, where its pool was already taken out.
   *
   * @param existing the pool as the live table has it, null when new
   * @param built the pools built in earlier rounds, by change index (checked and built once)
   * @return whether the table changes (removing an unknown pool does not)
   * @throws IllegalArgumentException with the NACK's reason
   */
  private boolean stage(
      RoutingTable.Editor editor,
      PoolRuntime existing,
      Change c,
      Map<Integer, PoolRuntime> built,
      int index) {
    if (c.isRemoval()) {
      SnapshotValidator.checkRemoval(existing, c.version());
      return existing != null;
    }
    PoolRuntime pool = built.get(index);
    if (pool == null) {
      PoolSnapshot s = c.snapshot();
      List<String> hosts = SnapshotValidator.check(s, existing, reservedPorts);
      pool = pools.build(s, hosts, existing);
      built.put(index, pool);
    }
    editor.put(pool);
    return true;
  }

  private Future<Void> install(TableObserver.Change change) {
    List<Future<Void>> preparing = new ArrayList<>();
    for (TableObserver o : observers) {
      preparing.add(o.prepare(change));
    }
    return Future.all(preparing)
        .transform(
            ar -> {
              if (ar.failed()) {
                for (TableObserver o : observers) {
                  o.abort(change);
                }
                return Future.failedFuture(ar.cause().getMessage());
              }
              if (!table.compareAndSet(change.previous(), change.next())) {
                return Future.failedFuture("routing table changed concurrently");
              }
              firstApplied = true;
              // Only now may the members the new routers share with the old ones change weight.
              for (String pool : change.pools()) {
                PoolRuntime installed = change.next().pool(pool);
                if (installed != null) {
                  installed.router().activate();
                }
              }
              for (TableObserver o : observers) {
                o.installed(change);
              }
              return Future.succeededFuture();
            });
  }
}
