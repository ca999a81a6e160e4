package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.Objects;

/**
 * Whether a reconcile failed because its pool was deleted meanwhile: the failure is a 404 (the
 * status write, typically) and the API server no longer has a pool of that name and UID. The API
 * server is asked, not the informer's cache, which may not have seen the deletion yet.
 */
final class PoolPresence {
  private PoolPresence() {}

  static boolean deletedDuring(ReplicaPool pool, KubernetesClient client, Exception error) {
    if (!notFound(error)) {
      return false;
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

  private static boolean notFound(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof KubernetesClientException k
          && k.getCode() == HttpURLConnection.HTTP_NOT_FOUND) {
        return true;
      }
    }
    return false;
  }
}
