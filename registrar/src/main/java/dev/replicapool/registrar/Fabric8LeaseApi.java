package dev.replicapool.registrar;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.function.Supplier;

/**
 * The Lease's calls through a fabric8 client: the way for kube configs {@link KubeAccess} does not
 * read (exec plugins, auth providers, proxies) and for programs that embed the registrar with a
 * client of their own. The client is its owner's to close.
 */
final class Fabric8LeaseApi implements LeaseApi {
  private final KubernetesClient client;
  private final String namespace;

  /** The Lease by name alone, built once: what {@code resource(...)} needs to address it. */
  private final Lease target;

  Fabric8LeaseApi(KubernetesClient client, String namespace, String name) {
    this.client = client;
    this.namespace = namespace;
    this.target = new Lease();
    target.setMetadata(new ObjectMeta());
    target.getMetadata().setName(name);
    target.getMetadata().setNamespace(namespace);
  }

  @Override
  public void create(String json) {
    Lease lease = client.getKubernetesSerialization().unmarshal(json, Lease.class);
    call(() -> client.leases().inNamespace(namespace).resource(lease).create());
  }

  @Override
  public void mergePatch(String json) {
    // Addressed by name through resource(...): withName(...) would GET the Lease first.
    call(() -> lease().patch(PatchContext.of(PatchType.JSON_MERGE), json));
  }

  @Override
  public void delete() {
    call(() -> lease().delete());
  }

  private Resource<Lease> lease() {
    return client.leases().inNamespace(namespace).resource(target);
  }

  private static void call(Supplier<?> call) {
    try {
      call.get();
    } catch (KubernetesClientException e) {
      if (e.getCode() <= 0) {
        throw e;
      }
      String reason = e.getStatus() != null ? e.getStatus().getMessage() : e.getMessage();
      throw new RefusedException(e.getCode(), reason);
    }
  }
}
