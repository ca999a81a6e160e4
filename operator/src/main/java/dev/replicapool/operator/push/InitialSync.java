package dev.replicapool.operator.push;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.controlplane.ControlPlaneServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the control-plane server once every pool that existed when this replica began to lead has
 * been published. Data planes wait for that word before they report ready: so they neither report
 * ready with a half-filled table, nor stay unready for ever when there is no pool at all.
 */
public final class InitialSync {
  private static final Logger log = LoggerFactory.getLogger(InitialSync.class);

  /** After this long the operator declares the data planes synced anyway, naming the laggards. */
  static final long GIVE_UP_MILLIS = 30_000;

  private final Vertx vertx;
  private final ControlPlaneServer server;
  private final SnapshotPublisher publisher;
  private final Set<String> pending = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean begun = new AtomicBoolean();
  private final AtomicBoolean done = new AtomicBoolean();

  public InitialSync(Vertx vertx, ControlPlaneServer server, SnapshotPublisher publisher) {
    this.vertx = vertx;
    this.server = server;
    this.publisher = publisher;
    publisher.onPublished(this::published);
  }

  /** Called once this replica leads, with the pools ("namespace/name") that exist now. */
  public void begin(Collection<String> pools) {
    if (!begun.compareAndSet(false, true)) {
      return;
    }
    pending.addAll(pools);
    pending.removeIf(p -> publisher.version(p) > 0);
    vertx.setTimer(
        GIVE_UP_MILLIS,
        id -> {
          if (!pending.isEmpty()) {
            log.warn("declaring data planes synced although {} are not published yet", pending);
          }
          finish();
        });
    if (pending.isEmpty()) {
      finish();
    }
  }

  /** The pools ("namespace/name") in the watched namespaces (all when empty), read from the API. */
  public static List<String> existingPools(KubernetesClient client, Set<String> namespaces) {
    try {
      var pools = client.resources(ReplicaPool.class);
      List<ReplicaPool> items =
          namespaces.isEmpty()
              ? pools.inAnyNamespace().list().getItems()
              : namespaces.stream()
                  .flatMap(ns -> pools.inNamespace(ns).list().getItems().stream())
                  .toList();
      return items.stream()
          .map(p -> p.getMetadata().getNamespace() + "/" + p.getMetadata().getName())
          .toList();
    } catch (RuntimeException e) {
      // The give-up timer still marks the data planes synced.
      log.warn("could not list pools for the initial sync: {}", e.getMessage());
      return List.of("<unknown>");
    }
  }

  private void published(String pool) {
    if (pending.remove(pool) && begun.get() && pending.isEmpty()) {
      finish();
    }
  }

  private void finish() {
    if (done.compareAndSet(false, true)) {
      boolean every = pending.isEmpty();
      // Incomplete: data planes report ready but keep pools this operator has not published,
      // since those may exist and merely lag (or failed to list).
      server.markInitialSyncDone(every);
      log.info(
          every
              ? "every pool published: data planes may report ready"
              : "data planes may report ready; they keep pools not published yet");
    }
  }
}
