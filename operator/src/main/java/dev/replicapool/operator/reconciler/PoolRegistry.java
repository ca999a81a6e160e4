package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.MemberSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link PoolState} of every pool this operator reconciles, keyed by the pool's {@link
 * ResourceID}: everything kept of a pool between reconciles lives there and goes with it.
 */
final class PoolRegistry {
  private final Map<ResourceID, PoolState> pools = new ConcurrentHashMap<>();
  private final Clock clock;

  PoolRegistry(Clock clock) {
    this.clock = clock;
  }

  PoolState getOrCreate(ResourceID id) {
    return pools.computeIfAbsent(id, k -> new PoolState(k, clock));
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

  Optional<PoolState> remove(ResourceID id) {
    return Optional.ofNullable(pools.remove(id));
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
