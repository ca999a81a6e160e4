package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Objects;

/**
 * Whether a reconcile failed because its pool was deleted meanwhile: the API server no longer has a
 * pool of that name and UID. Asked of the API server, not the informer's cache, which may not have
 * seen the deletion yet, and after any failure (the status write's 404 is the usual one).
 *
 * <p>Why this matters beyond a quieter log: JOSDK 5.2.3, in its all-events mode, loses the delete
 * event of a resource whose reconcile fails after further events arrived for it (probe results, in
 * our case): its retry handling turns "delete event and more" into a plain event, and the reconcile
 * with {@code isPrimaryResourceDeleted} never comes. The pool is forgotten here instead, and the
 * failure is reported to JOSDK as no failure, so the delete event stays and its reconcile follows.
 */
final class PoolPresence {
  private PoolPresence() {}

  static boolean deletedDuring(ReplicaPool pool, KubernetesClient client) {
    if (Thread.currentThread().isInterrupted()) {
      return false; // the operator stops: not the moment to ask
    }
    try {
      ReplicaPool current =
          client
              .resources(ReplicaPool.class)
              .inNamespace(pool.getMetadata().getNamespace())
              .withName(pool.getMetadata().getName())
              .get();
      return current == null
          || !Objects.equals(current.getMetadata().getUid(), pool.getMetadata().getUid());
    } catch (KubernetesClientException e) {
      return false; // cannot tell: the usual failure path, and JOSDK retries
    }
  }
}
