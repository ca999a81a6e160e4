package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A kind cluster made with the kind CLI, as a kind user makes one: {@code kind create cluster} with
 * the node image of scripts/build-kind-node-image.sh (nothing can be pulled here, so not
 * kindcontainer, whose node set-up pulls kind's CNI and Testcontainers' Ryuk), the images of
 * target/images/ loaded with {@code kind load image-archive}, and {@code kind delete cluster} at
 * the end. Services are reached through a NodePort at the node's address on Docker's {@code kind}
 * network, which this host routes to.
 */
final class KindCluster implements E2eCluster {
  static final Path ROOT = RenderedManifests.repoRoot();
  static final String NAME = System.getProperty("replicapool.kind.cluster", "replicapool-e2e");
  static final String NODE_IMAGE =
      System.getProperty("replicapool.kind.image", "replicapool.local/kind-node:v1.32.4");
  static final Path CONFIG = ROOT.resolve("scripts/cluster/kind-config.yaml");
  static final int NODE_PORT = 30080;

  private final Path kubeconfig;

  /** Fails, saying which script to run, when kind, Docker, the node image or the images lack. */
  static KindCluster start() throws IOException {
    HostCommand version = kind(30, "version");
    assertThat(version.ok())
        .as("the kind CLI (scripts/provision-kind.sh): %s", version.out())
        .isTrue();
    HostCommand node = host(60, "docker", "image", "inspect", "--format", "{{.Id}}", NODE_IMAGE);
    assertThat(node.ok())
        .as(
            "node image %s in Docker (scripts/provision-docker.sh, then"
                + " scripts/build-kind-node-image.sh): %s",
            NODE_IMAGE, node.out())
        .isTrue();
    List<Path> tars = LocalCluster.IMAGE_TARS.stream().map(LocalCluster.IMAGES::resolve).toList();
    assertThat(tars)
        .as("image archives (scripts/build-images.sh --oci, docs/INSTALL.md)")
        .allMatch(Files::isRegularFile);
    if (kind(60, "get", "clusters").out().lines().anyMatch(NAME::equals)) {
      // Left by a run that was killed before its close(): start from a new node.
      delete();
    }
    Path kubeconfig = Files.createTempFile("kind-kubeconfig-", ".yaml");
    kubeconfig.toFile().deleteOnExit();
    KindCluster cluster = new KindCluster(kubeconfig);
    HostCommand created =
        kind(
            600,
            "create",
            "cluster",
            "--name",
            NAME,
            "--image",
            NODE_IMAGE,
            "--config",
            CONFIG.toString(),
            "--kubeconfig",
            kubeconfig.toString(),
            "--wait",
            "3m");
    assertThat(created.exit()).as("kind create cluster:\n%s", created.out()).isZero();
    for (Path tar : tars) {
      HostCommand loaded = kind(600, "load", "image-archive", tar.toString(), "--name", NAME);
      assertThat(loaded.exit()).as("kind load image-archive %s:\n%s", tar, loaded.out()).isZero();
    }
    return cluster;
  }

  private KindCluster(Path kubeconfig) {
    this.kubeconfig = kubeconfig;
  }

  @Override
  public Path kubeconfig() {
    return kubeconfig;
  }

  /** A NodePort Service beside the given one (same selector and target port), at the node. */
  @Override
  public InetSocketAddress reach(
      KubernetesClient client, String namespace, String service, int port) {
    Service target = client.services().inNamespace(namespace).withName(service).get();
    IntOrString targetPort =
        target.getSpec().getPorts().stream()
            .filter(p -> p.getPort() == port)
            .findFirst()
            .orElseThrow()
            .getTargetPort();
    client
        .services()
        .inNamespace(namespace)
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName(service + "-e2e")
                .endMetadata()
                .withNewSpec()
                .withType("NodePort")
                .withSelector(target.getSpec().getSelector())
                .addNewPort()
                .withPort(port)
                .withTargetPort(targetPort)
                .withNodePort(NODE_PORT)
                .endPort()
                .endSpec()
                .build())
        .createOr(existing -> existing.update());
    String nodeIp =
        client.nodes().list().getItems().get(0).getStatus().getAddresses().stream()
            .filter(a -> "InternalIP".equals(a.getType()))
            .map(NodeAddress::getAddress)
            .findFirst()
            .orElseThrow();
    return new InetSocketAddress(nodeIp, NODE_PORT);
  }

  /** Deletes the cluster; fails if kind could not (a node container would be left behind). */
  @Override
  public void close() {
    delete();
  }

  private static void delete() {
    HostCommand deleted = kind(300, "delete", "cluster", "--name", NAME);
    assertThat(deleted.exit()).as("kind delete cluster:\n%s", deleted.out()).isZero();
  }

  private static HostCommand kind(int timeoutSeconds, String... args) {
    List<String> command = new ArrayList<>(List.of(kindBinary()));
    command.addAll(List.of(args));
    return HostCommand.run(ROOT, timeoutSeconds, command);
  }

  private static HostCommand host(int timeoutSeconds, String... command) {
    return HostCommand.run(ROOT, timeoutSeconds, List.of(command));
  }

  /** Where scripts/provision-kind.sh puts kind, else kind on the PATH. */
  private static String kindBinary() {
    Path provisioned = Path.of(System.getProperty("user.home"), ".local", "bin", "kind");
    return Files.isExecutable(provisioned) ? provisioned.toString() : "kind";
  }
}
