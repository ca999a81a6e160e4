package dev.replicapool.registrar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.registration.LeaseConventions;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registrar as it runs in a Pod: the JDK's client with the service account's token, CA and
 * namespace files and the service's address from the environment, against a real kube-apiserver
 * that checks the token and the account's RBAC.
 */
class RegistrarInClusterIT extends RegistrarApiServerBase {
  @Test
  void aPodsServiceAccountRegistersThroughTheJdkClient(@TempDir Path account) throws Exception {
    client
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("replica").endMetadata().build())
        .create();
    // What manifests/rbac.yaml grants a registrar: Leases, nothing else.
    client
        .rbac()
        .roles()
        .inNamespace(namespace)
        .resource(
            new RoleBuilder()
                .withNewMetadata()
                .withName("registrar")
                .endMetadata()
                .addNewRule()
                .withApiGroups("coordination.k8s.io")
                .withResources("leases")
                .withVerbs("create", "patch", "delete")
                .endRule()
                .build())
        .create();
    client
        .rbac()
        .roleBindings()
        .inNamespace(namespace)
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName("registrar")
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "Role", "registrar")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("replica")
                .withNamespace(namespace)
                .endSubject()
                .build())
        .create();
    Files.writeString(account.resolve("token"), token("replica"));
    Files.writeString(account.resolve("namespace"), namespace);
    Files.write(account.resolve("ca.crt"), caCertificate());
    URI server = URI.create(client.getConfiguration().getMasterUrl());
    Map<String, String> env =
        Map.of(
            "KUBERNETES_SERVICE_HOST", server.getHost(),
            "KUBERNETES_SERVICE_PORT", Integer.toString(server.getPort()));

    KubeAccess access =
        KubeAccess.read(Optional.empty(), env, account.resolve("home"), account, false)
            .orElseThrow();
    assertThat(access.namespace()).contains(namespace);
    try (LeaseRegistrar registrar =
        LeaseRegistrar.builder(
                (ns, name) -> new JdkLeaseApi(access, ns, name, Duration.ofSeconds(2)))
            .namespace(access.namespace().orElseThrow())
            .pool("pod")
            .replica("k1")
            .address("10.0.0.7:8080")
            .build()) {
      assertThat(registrar.renewOnce()).isTrue();
      assertThat(lease("pod-k1").getMetadata().getAnnotations())
          .containsEntry(LeaseConventions.ADDRESS_ANNOTATION, "10.0.0.7:8080");
      assertThat(registrar.renewOnce()).isTrue();
      registrar.leave();
      await().atMost(Duration.ofSeconds(5)).until(() -> lease("pod-k1") == null);
    }

    // An account without the Role: refused by RBAC, with the API server's reason.
    client
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName("stranger")
                .endMetadata()
                .build())
        .create();
    Files.writeString(account.resolve("token"), token("stranger"));
    LeaseApi forbidden = new JdkLeaseApi(access, namespace, "pod-k3", Duration.ofSeconds(2));
    assertThat(
            org.assertj.core.api.Assertions.catchThrowableOfType(
                () -> forbidden.delete(), LeaseApi.RefusedException.class))
        .satisfies(e -> assertThat(e.code()).isEqualTo(403))
        .hasMessageContaining("forbidden");

    // A token the API server does not know: refused with its code, and said so.
    Files.writeString(account.resolve("token"), "not-a-token");
    LeaseApi refused = new JdkLeaseApi(access, namespace, "pod-k2", Duration.ofSeconds(2));
    assertThat(
            org.assertj.core.api.Assertions.catchThrowableOfType(
                () -> refused.mergePatch("{}"), LeaseApi.RefusedException.class))
        .satisfies(e -> assertThat(e.code()).isEqualTo(401))
        .hasMessageStartingWith("HTTP 401: ");
  }

  /** A token of service account {@code name}, as the kubelet mounts one (TokenRequest). */
  private String token(String name) {
    return client
        .serviceAccounts()
        .inNamespace(namespace)
        .withName(name)
        .tokenRequest(
            new TokenRequestBuilder().withNewSpec().withExpirationSeconds(600L).endSpec().build())
        .getStatus()
        .getToken();
  }

  private byte[] caCertificate() throws Exception {
    var config = client.getConfiguration();
    if (config.getCaCertData() != null) {
      return Base64.getDecoder().decode(config.getCaCertData());
    }
    return Files.readAllBytes(Path.of(config.getCaCertFile()));
  }
}
