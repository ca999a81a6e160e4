package dev.replicapool.registrar;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which kube configs the JDK's client serves alone, and what it reads from them. */
class KubeAccessTest {
  @TempDir Path dir;

  private Optional<KubeAccess> read(Path kubeconfig) {
    return KubeAccess.read(
        Optional.of(kubeconfig), Map.of(), dir, dir.resolve("no-account"), false);
  }

  private Path kubeconfig(String user, String cluster) throws Exception {
    return Files.writeString(
        dir.resolve("config"),
        """
        apiVersion: v1
        kind: Config
        current-context: mine
        contexts:
          - name: other
            context: {cluster: c, user: u, namespace: wrong}
          - name: mine
            context: {cluster: c, user: u, namespace: shop}
        clusters:
          - name: c
            cluster:
        %s
        users:
          - name: u
            user:
        %s
        """
            .formatted(cluster.indent(6), user.indent(6)));
  }

  @Test
  void aTokenAndAServerOfTheCurrentContext() throws Exception {
    KubeAccess access =
        read(kubeconfig("token: abc", "server: https://127.0.0.1:6443/prefix/")).orElseThrow();

    assertThat(access.server().toString()).isEqualTo("https://127.0.0.1:6443/prefix/");
    assertThat(access.authorization().get()).contains("Bearer abc");
    assertThat(access.namespace()).contains("shop");
    assertThat(access.tls()).isPresent(); // the JDK's trust store: no CA named
  }

  @Test
  void aTokenFileIsReadAtEveryCallRelativeToTheConfig() throws Exception {
    Files.writeString(dir.resolve("token"), "first\n");
    KubeAccess access =
        read(kubeconfig("tokenFile: token", "server: https://127.0.0.1:6443")).orElseThrow();
    assertThat(access.authorization().get()).contains("Bearer first");

    Files.writeString(dir.resolve("token"), "rotated\n");
    assertThat(access.authorization().get()).contains("Bearer rotated");
  }

  @Test
  void aUserAndPasswordAreBasic() throws Exception {
    KubeAccess access =
        read(kubeconfig("username: ann\npassword: pw", "server: http://127.0.0.1:8080"))
            .orElseThrow();
    assertThat(access.authorization().get()).contains("Basic YW5uOnB3");
    assertThat(access.tls()).isEmpty();
  }

  @Test
  void whatTheJdkClientCannotServeIsLeftToFabric8() throws Exception {
    String server = "server: https://127.0.0.1:6443";
    assertThat(read(kubeconfig("exec: {command: aws, apiVersion: v1}", server))).isEmpty();
    assertThat(read(kubeconfig("auth-provider: {name: oidc}", server))).isEmpty();
    assertThat(read(kubeconfig("token: a\nas: admin", server))).isEmpty();
    assertThat(read(kubeconfig("token: a", server + "\ninsecure-skip-tls-verify: true"))).isEmpty();
    assertThat(read(kubeconfig("token: a", server + "\nproxy-url: http://proxy:3128"))).isEmpty();
    assertThat(read(kubeconfig("client-certificate: missing.crt", server))).isEmpty();
    assertThat(read(Files.writeString(dir.resolve("broken"), "current-context: [")))
        .as("fabric8 reads it again and says what is wrong")
        .isEmpty();
  }

  @Test
  void fabric8sEnvironmentOverridesAndMergedConfigsGoToFabric8() throws Exception {
    Path config = kubeconfig("token: abc", "server: https://127.0.0.1:6443");
    Path home = Files.createDirectories(dir.resolve("home").resolve(".kube")).getParent();
    Files.copy(config, home.resolve(".kube").resolve("config"));
    Path none = dir.resolve("no-account");

    assertThat(KubeAccess.read(Optional.empty(), Map.of(), home, none, false)).isPresent();
    assertThat(
            KubeAccess.read(
                Optional.empty(), Map.of("KUBECONFIG", config.toString()), dir, none, false))
        .isPresent();
    assertThat(
            KubeAccess.read(
                Optional.empty(), Map.of("KUBECONFIG", config + ":" + config), home, none, false))
        .isEmpty();
    assertThat(
            KubeAccess.read(
                Optional.empty(), Map.of("KUBERNETES_MASTER", "https://x"), home, none, false))
        .isEmpty();
    assertThat(KubeAccess.read(Optional.empty(), Map.of(), home, none, true)).isEmpty();
    assertThat(KubeAccess.read(Optional.empty(), Map.of(), dir, none, false))
        .as("no config at all: fabric8 says so")
        .isEmpty();
  }

  @Test
  void inAPodTheServiceAccountAndTheServiceAddress() throws Exception {
    Path account = Files.createDirectories(dir.resolve("account"));
    Files.writeString(account.resolve("token"), "pod-token");
    Files.writeString(account.resolve("namespace"), "shop\n");
    Map<String, String> env =
        Map.of(
            "KUBERNETES_SERVICE_HOST",
            "fd00::1",
            "KUBERNETES_SERVICE_PORT",
            "443",
            "KUBERNETES_PORT",
            "tcp://[fd00::1]:443");

    KubeAccess access = KubeAccess.read(Optional.empty(), env, dir, account, false).orElseThrow();

    assertThat(access.server().toString()).isEqualTo("https://[fd00::1]:443");
    assertThat(access.authorization().get()).contains("Bearer pod-token");
    assertThat(access.namespace()).contains("shop");
    assertThat(KubeAccess.read(Optional.empty(), Map.of(), dir, account, false))
        .as("not in a Pod")
        .isEmpty();
  }

  @Test
  void theApiServersRefusalIsItsStatusMessage() {
    assertThat(
            JdkLeaseApi.statusMessage(
                "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"leases.coordination"
                    + ".k8s.io \\\"p-k1\\\" is forbidden\",\"code\":403}"))
        .isEqualTo("leases.coordination.k8s.io \"p-k1\" is forbidden");
    assertThat(JdkLeaseApi.statusMessage("bad gateway")).isEqualTo("bad gateway");
  }
}
