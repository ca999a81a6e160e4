package dev.replicapool.registrar;

import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.testing.LocalKubeApiServer;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.ZonedDateTime;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the registrar's tests against a real kube-apiserver and etcd share (kube-api-test, offline
 * binaries): a namespace of their own per test, a client, and reading a Lease back.
 */
abstract class RegistrarApiServerBase {
  private static final AtomicInteger NAMESPACES = new AtomicInteger();
  static String kubeConfigYaml;

  KubernetesClient client;
  String namespace;

  @BeforeAll
  static void startApiServer() {
    kubeConfigYaml = LocalKubeApiServer.get().kubeConfigYaml();
  }

  @BeforeEach
  void createNamespace() {
    client =
        new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeConfigYaml)).build();
    namespace = "registrar-" + ProcessHandle.current().pid() + "-" + NAMESPACES.incrementAndGet();
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
  }

  @AfterEach
  void closeClient() {
    client.close();
  }

  Lease lease(String name) {
    return client.leases().inNamespace(namespace).withName(name).get();
  }

  Optional<ZonedDateTime> renewTime(String name) {
    return Optional.ofNullable(lease(name)).map(l -> l.getSpec().getRenewTime());
  }

  static String healthy(Lease lease) {
    return lease.getMetadata().getAnnotations().get(LeaseConventions.HEALTHY_ANNOTATION);
  }
}
