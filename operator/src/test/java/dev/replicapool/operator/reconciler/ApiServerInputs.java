package dev.replicapool.operator.reconciler;

import dev.replicapool.api.registration.LeaseConventions;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/**
 * {@link PoolInputs} read from the API server on every call, without informers: a test sees at once
 * what it just created, and needs no running controller.
 */
final class ApiServerInputs implements PoolInputs {
  private final KubernetesClient client;

  ApiServerInputs(KubernetesClient client) {
    this.client = client;
  }

  @Override
  public List<Pod> pods(String namespace) {
    return client.pods().inNamespace(namespace).list().getItems();
  }

  @Override
  public List<Lease> leases(String namespace, String pool) {
    return client
        .leases()
        .inNamespace(namespace)
        .withLabel(LeaseConventions.POOL_LABEL, pool)
        .list()
        .getItems();
  }

  @Override
  public Secret tlsSecret(String namespace, String name) {
    Secret s = client.secrets().inNamespace(namespace).withName(name).get();
    return s != null && "kubernetes.io/tls".equals(s.getType()) ? s : null;
  }

  @Override
  public ConfigMap configMap(String namespace, String name) {
    return client.configMaps().inNamespace(namespace).withName(name).get();
  }
}
