package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.MemberSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link PoolState} of every pool this operator reconciles, keyed by the pool's {@link
 * ResourceID}: everything kept of a pool between reconciles lives there and goes with it.
 *
 * <p>It also remembers the UIDs of the last pools deleted, so that a reconcile of a pool that was
 * deleted while the reconcile ran (JOSDK retries one that failed) cannot bring its state back:
 * deletion is final. A new pool of the same name has another UID.
 */
final class PoolRegistry {
  /** Deleted UIDs kept; a late reconcile of a deleted pool comes within seconds, not thousands. */
  static final int DELETED_UIDS_KEPT = 4_096;

  private final Map<ResourceID, PoolState> pools = new ConcurrentHashMap<>();
  private final Map<String, Boolean> deletedUids =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
          return size() > DELETED_UIDS_KEPT;
        }
      };
  private final Clock clock;

  PoolRegistry(Clock clock) {
    this.clock = clock;
  }

  /**
   * The state of a pool about to be reconciled, created on its first reconcile; empty when the pool
   * of this UID was deleted (the reconcile must leave no trace).
   */
  Optional<PoolState> open(ResourceID id, String uid) {
    synchronized (deletedUids) {
      if (uid != null && deletedUids.containsKey(uid)) {
        return Optional.empty();
      }
      return Optional.of(pools.computeIfAbsent(id, k -> new PoolState(k, clock)));
    }
  }

  /**
   * Forgets a deleted pool: its state leaves the registry, {@link PoolState#retire retired}, and
   * its UID can open no state again.
   */
  Optional<PoolState> retire(ResourceID id, String uid) {
    PoolState state;
    synchronized (deletedUids) {
      if (uid != null) {
        deletedUids.put(uid, Boolean.TRUE);
      }
      state = pools.remove(id);
    }
    if (state != null) {
      state.retire();
    }
    return Optional.ofNullable(state);
  }

  /** Names ("namespace/name") of the pools held now. */
  Set<String> names() {
    Set<String> names = new TreeSet<>();
    pools.keySet().forEach(id -> names.add(name(id)));
    return names;
  }

  /**
   * The state of a pool named as the prober and the control plane name it ("namespace/name"); empty
   * for a name of another form (a data plane may acknowledge anything).
   */
  Optional<PoolState> find(String name) {
    int slash = name.indexOf('/');
    if (slash < 0) {
      return Optional.empty();
    }
    return Optional.ofNullable(
        pools.get(new ResourceID(name.substring(slash + 1), name.substring(0, slash))));
  }

  /** Whether any pool in the Pod's namespace routes to it now (a Pod may be in several pools). */
  boolean anyPoolRoutesTo(Pod pod) {
    String namespace = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    for (var e : pools.entrySet()) {
      if (e.getKey().getNamespace().filter(namespace::equals).isPresent()
          && e.getValue().members().stream()
              .anyMatch(
                  t ->
                      t.member().source() == MemberSource.Pod
                          && name.equals(t.member().name())
                          && t.health().snapshot().routable())) {
        return true;
      }
    }
    return false;
  }

  /** "namespace/name", the pool's name outside JOSDK. */
  static String name(ResourceID id) {
    return id.getNamespace().orElse("") + "/" + id.getName();
  }
}
