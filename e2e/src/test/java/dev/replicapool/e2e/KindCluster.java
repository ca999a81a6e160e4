package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.dajudge.kindcontainer.KindContainer;
import com.dajudge.kindcontainer.KindContainerVersion;
import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.utility.MountableFile;

/**
 * A kind node in Docker (kindcontainer) with the three images loaded as {@code kind load
 * docker-image} would. Services are reached through one NodePort mapped to this host.
 */
final class KindCluster implements E2eCluster {
  static final List<String> IMAGES =
      List.of(
          "replicapool/operator:" + IMAGE_TAG,
          "replicapool/dataplane:" + IMAGE_TAG,
          "replicapool/sample-replica:" + IMAGE_TAG);
  static final int NODE_PORT = 30080;

  private final KindContainer<?> kind;
  private final Path kubeconfig;

  /** Skips (an assumption) when the images are not in the local Docker. */
  static KindCluster start() throws Exception {
    DockerClient docker = DockerClientFactory.instance().client();
    List<String> missing = IMAGES.stream().filter(i -> !imagePresent(docker, i)).toList();
    Assumptions.assumeTrue(
        missing.isEmpty(),
        () ->
            "images "
                + missing
                + " are not in the local Docker: run scripts/build-images.sh first"
                + " (docs/INSTALL.md)");
    KindContainer<?> kind =
        new KindContainer<>(KindContainerVersion.VERSION_1_31_0).withExposedPorts(NODE_PORT);
    kind.start();
    KindCluster cluster = new KindCluster(kind);
    String snapshotter = cluster.snapshotter();
    for (String image : IMAGES) {
      cluster.loadImage(docker, image, snapshotter);
    }
    return cluster;
  }

  private KindCluster(KindContainer<?> kind) throws IOException {
    this.kind = kind;
    this.kubeconfig = Files.createTempFile("kind-kubeconfig-", ".yaml");
    Files.writeString(kubeconfig, kind.getKubeconfig());
    kubeconfig.toFile().deleteOnExit();
  }

  @Override
  public Path kubeconfig() {
    return kubeconfig;
  }

  /** One NodePort Service beside the given one (same selector and target port). */
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
    return new InetSocketAddress(kind.getHost(), kind.getMappedPort(NODE_PORT));
  }

  @Override
  public void close() {
    kind.stop();
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
  void loadImage(DockerClient docker, String image, String snapshotter) throws Exception {
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

  ExecResult ctrImport(String tar, String snapshotter, String platforms) throws Exception {
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
  String snapshotter() throws Exception {
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
}
