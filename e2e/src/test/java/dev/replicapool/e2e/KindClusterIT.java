package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.dajudge.kindcontainer.KindContainer;
import com.dajudge.kindcontainer.KindContainerVersion;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.testing.Kubectl;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.MountableFile;

/**
 * The install on a real cluster: a kind node in Docker (kindcontainer), the three images loaded as
 * {@code kind load docker-image} would, {@code manifests/} applied, the sample pool of
 * manifests/samples/tracking.yaml applied, and requests sent through a NodePort Service in front of
 * the data planes until every replica has answered.
 *
 * <p>Skipped without Docker ({@code disabledWithoutDocker}), and skipped with a message when the
 * images are missing: build them first with {@code scripts/build-images.sh} (docs/INSTALL.md).
 */
@Testcontainers(disabledWithoutDocker = true)
class KindClusterIT {
  static final String TAG = System.getProperty("replicapool.image.tag", "0.1.0");
  static final List<String> IMAGES =
      List.of(
          "replicapool/operator:" + TAG,
          "replicapool/dataplane:" + TAG,
          "replicapool/sample-replica:" + TAG);
  static final int NODE_PORT = 30080;
  static final String POOL_HOST = "tracking.shop.example";
  static final Duration ROLLOUT = Duration.ofMinutes(5);

  static KindContainer<?> kind;
  static KubernetesClient client;
  static Kubectl kubectl;

  @BeforeAll
  static void startClusterWithImages() throws Exception {
    DockerClient docker = DockerClientFactory.instance().client();
    List<String> missing = IMAGES.stream().filter(i -> !imagePresent(docker, i)).toList();
    Assumptions.assumeTrue(
        missing.isEmpty(),
        () ->
            "images "
                + missing
                + " are not in the local Docker: run scripts/build-images.sh first"
                + " (docs/INSTALL.md)");
    kind = new KindContainer<>(KindContainerVersion.VERSION_1_31_0).withExposedPorts(NODE_PORT);
    kind.start();
    String snapshotter = snapshotter();
    for (String image : IMAGES) {
      loadImage(docker, image, snapshotter);
    }
    Path kubeconfig = Files.createTempFile("kind-kubeconfig-", ".yaml");
    Files.writeString(kubeconfig, kind.getKubeconfig());
    kubeconfig.toFile().deleteOnExit();
    client =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(kind.getKubeconfig()))
            .build();
    kubectl = new Kubectl(kubeconfig);
  }

  @AfterAll
  static void stopCluster() {
    if (client != null) {
      client.close();
    }
    if (kind != null) {
      kind.stop();
    }
  }

  @Test
  void installThenRouteTrafficToEveryReplicaOfAPool() throws Exception {
    // 1. The install, as docs/INSTALL.md has it (the token comes from a fresh copy of the base).
    RenderedManifests m = RenderedManifests.render(kubectl, client);
    Kubectl.Result install = kubectl.runWithInput(m.yaml, "apply", "--server-side", "-f", "-");
    assertThat(install.exitCode()).as(install.output()).isZero();
    // Readiness means leadership: exactly one operator replica becomes ready.
    awaitReadyReplicas("replicapool-system", "replicapool-operator", 1);

    // 2. Three sample replicas and the pool that selects them.
    Path sample = RenderedManifests.manifestsDir().resolve("samples").resolve("tracking.yaml");
    Kubectl.Result pool = kubectl.run("apply", "-f", sample.toString());
    assertThat(pool.exitCode()).as(pool.output()).isZero();
    awaitReadyReplicas("shop", "tracking", 3);
    await()
        .atMost(ROLLOUT)
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              ReplicaPool p =
                  client
                      .resources(ReplicaPool.class)
                      .inNamespace("shop")
                      .withName("tracking")
                      .get();
              assertThat(condition(p, "Ready")).as("Ready of %s", status(p)).isEqualTo("True");
              assertThat(p.getStatus().routable).isEqualTo(3);
            });
    // Data planes are ready once they applied the first snapshot.
    awaitReadyReplicas("replicapool-system", "replicapool-dataplane", 2);
    await()
        .atMost(Duration.ofMinutes(1))
        .untilAsserted(
            () ->
                assertThat(
                        condition(
                            client
                                .resources(ReplicaPool.class)
                                .inNamespace("shop")
                                .withName("tracking")
                                .get(),
                            "DataPlaneSynced"))
                    .isEqualTo("True"));

    // 3. Traffic through a Service in front of the data planes (a NodePort, mapped to this host).
    client
        .services()
        .inNamespace("replicapool-system")
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("replicapool-dataplane-e2e")
                .endMetadata()
                .withNewSpec()
                .withType("NodePort")
                .addToSelector("app.kubernetes.io/name", "replicapool-dataplane")
                .addNewPort()
                .withName("http")
                .withPort(80)
                .withTargetPort(new IntOrString("http"))
                .withNodePort(NODE_PORT)
                .endPort()
                .endSpec()
                .build())
        .create();
    String host = kind.getHost();
    int port = kind.getMappedPort(NODE_PORT);
    await()
        .atMost(Duration.ofMinutes(1))
        .ignoreExceptions()
        .untilAsserted(
            () -> assertThat(get(host, port, POOL_HOST, "/track/0").status).isEqualTo(200));

    Map<String, Integer> perReplica = new HashMap<>();
    for (int i = 0; i < 90; i++) {
      Reply r = get(host, port, POOL_HOST, "/track/" + i);
      assertThat(r.status).as("request %d: %s", i, r.body).isEqualTo(200);
      assertThat(r.header("x-replica")).as("x-replica of request %d", i).isPresent();
      perReplica.merge(r.header("x-replica").get(), 1, Integer::sum);
    }
    List<String> pods =
        client.pods().inNamespace("shop").withLabel("app", "tracking").list().getItems().stream()
            .map(p -> p.getMetadata().getName())
            .toList();
    assertThat(perReplica.keySet())
        .as("replicas that answered")
        .containsExactlyInAnyOrderElementsOf(pods);
    // Two data planes each spread by smooth weighted round-robin; the Service spreads between them.
    assertThat(perReplica.values())
        .as("requests per replica %s", perReplica)
        .allMatch(n -> n >= 15);

    // An unknown Host is no pool's: the data plane says so instead of guessing.
    assertThat(get(host, port, "nobody.example", "/").status).isBetween(400, 599);
  }

  // ---------------------------------------------------------------- cluster helpers

  static void awaitReadyReplicas(String namespace, String deployment, int ready) {
    await()
        .atMost(ROLLOUT)
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              Deployment d =
                  client.apps().deployments().inNamespace(namespace).withName(deployment).get();
              assertThat(d).as("%s/%s", namespace, deployment).isNotNull();
              Integer readyNow = d.getStatus() == null ? null : d.getStatus().getReadyReplicas();
              assertThat(readyNow)
                  .as("ready replicas of %s/%s; pods: %s", namespace, deployment, pods(namespace))
                  .isEqualTo(ready);
            });
  }

  static String pods(String namespace) {
    Kubectl.Result r = kubectl.run("get", "pods", "-n", namespace, "-o", "wide");
    return r.output();
  }

  static String condition(ReplicaPool p, String type) {
    if (p == null || p.getStatus() == null) {
      return null;
    }
    return p.getStatus().conditions.stream()
        .filter(c -> type.equals(c.getType()))
        .map(Condition::getStatus)
        .findFirst()
        .orElse(null);
  }

  static String status(ReplicaPool p) {
    return p == null || p.getStatus() == null ? "(no status)" : p.getStatus().conditions.toString();
  }

  static boolean imagePresent(DockerClient docker, String image) {
    try {
      docker.inspectImageCmd(image).exec();
      return true;
    } catch (NotFoundException e) {
      return false;
    }
  }

  /** What {@code kind load docker-image} does: docker save, then ctr import on the node. */
  static void loadImage(DockerClient docker, String image, String snapshotter) throws Exception {
    Path tar = Files.createTempFile("replicapool-image-", ".tar");
    try {
      try (InputStream in = docker.saveImageCmd(image).exec()) {
        Files.copy(in, tar, StandardCopyOption.REPLACE_EXISTING);
      }
      String inNode = "/tmp/replicapool-image.tar";
      kind.copyFileToContainer(MountableFile.forHostPath(tar), inNode);
      ExecResult imported = ctrImport(inNode, snapshotter, "--all-platforms");
      if (imported.getExitCode() != 0 && imported.getStderr().contains("not found")) {
        // Docker's containerd image store saves an index naming platforms it never pulled
        // (kind issue 3795): import just the node's platform then.
        String arch = kind.execInContainer("uname", "-m").getStdout().trim();
        String platform = "linux/" + (arch.equals("aarch64") ? "arm64" : "amd64");
        imported = ctrImport(inNode, snapshotter, "--platform=" + platform);
      }
      assertThat(imported.getExitCode())
          .as("importing %s: %s%s", image, imported.getStdout(), imported.getStderr())
          .isZero();
      kind.execInContainer("rm", "-f", inNode);
    } finally {
      Files.deleteIfExists(tar);
    }
  }

  static ExecResult ctrImport(String tar, String snapshotter, String platforms) throws Exception {
    return kind.execInContainer(
        "ctr",
        "--namespace=k8s.io",
        "images",
        "import",
        platforms,
        "--digests",
        "--snapshotter=" + snapshotter,
        tar);
  }

  /** The CRI plugin's snapshotter, as kind reads it (images must land where the kubelet looks). */
  static String snapshotter() throws Exception {
    ExecResult dump = kind.execInContainer("containerd", "config", "dump");
    String config = dump.getStdout();
    int cri = config.indexOf("[plugins.\"io.containerd.grpc.v1.cri\".containerd]");
    if (cri >= 0) {
      Matcher s = Pattern.compile("(?m)^\\s*snapshotter\\s*=\\s*\"([^\"]+)\"").matcher(config);
      if (s.find(cri)) {
        return s.group(1);
      }
    }
    return "overlayfs";
  }

  // ---------------------------------------------------------------- HTTP with any Host header

  record Reply(int status, Map<String, String> headers, String body) {
    Optional<String> header(String name) {
      return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
    }
  }

  /**
   * One HTTP/1.1 request on its own connection (so the Service picks a data plane each time), with
   * the Host header of the pool's route, which java.net.http does not let a caller set.
   */
  static Reply get(String host, int port, String hostHeader, String path) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 3000);
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET " + path + " HTTP/1.1\r\nHost: " + hostHeader + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      int end = response.indexOf("\r\n\r\n");
      assertThat(end).as("a complete response head: %s", response).isPositive();
      String[] lines = response.substring(0, end).split("\r\n");
      int status = Integer.parseInt(lines[0].split(" ")[1]);
      Map<String, String> headers = new HashMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        headers.put(
            lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
            lines[i].substring(colon + 1).trim());
      }
      return new Reply(status, headers, response.substring(end + 4));
    }
  }
}
