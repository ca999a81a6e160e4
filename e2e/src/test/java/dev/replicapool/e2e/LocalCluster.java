package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * The one-node cluster of scripts/local-cluster.sh on this machine (no Docker): brought up if it is
 * not running (and then brought down again), the images of target/images/ imported into its
 * containerd. Its network namespace is routed from the host, so a Service is reached at its
 * ClusterIP.
 */
final class LocalCluster implements E2eCluster {
  static final Path ROOT = RenderedManifests.repoRoot();
  static final Path SCRIPT = ROOT.resolve("scripts/local-cluster.sh");
  static final Path IMAGES = ROOT.resolve("target/images");
  static final List<String> IMAGE_TARS =
      List.of("operator.tar", "dataplane.tar", "sample-replica.tar");

  private final Path kubeconfig;
  private final boolean startedHere;

  /**
   * Skips (an assumption) only when `local-cluster.sh check` says this machine cannot run the
   * cluster, with what it lacks; every later failure fails the test.
   */
  static LocalCluster start() throws Exception {
    HostCommand check = run(60, "check");
    Assumptions.assumeTrue(
        check.ok(), () -> "this machine cannot run scripts/local-cluster.sh:\n" + check.out());
    List<String> missing =
        IMAGE_TARS.stream().filter(t -> !Files.isRegularFile(IMAGES.resolve(t))).toList();
    assertThat(missing)
        .as(
            "image archives in %s (build them with scripts/build-images.sh --oci, docs/INSTALL.md)",
            IMAGES)
        .isEmpty();
    boolean running = run(60, "status").out().contains("API server https://");
    if (!running) {
      HostCommand up = run(3600, "up");
      assertThat(up.exit()).as("scripts/local-cluster.sh up:\n%s", up.out()).isZero();
    }
    HostCommand load = run(600, "load-images", IMAGES.toString());
    assertThat(load.exit()).as("scripts/local-cluster.sh load-images:\n%s", load.out()).isZero();
    return new LocalCluster(kubeconfigPath(), !running);
  }

  private LocalCluster(Path kubeconfig, boolean startedHere) {
    this.kubeconfig = kubeconfig;
    this.startedHere = startedHere;
  }

  static Path kubeconfigPath() {
    String dir = System.getenv("LOCAL_CLUSTER_DIR");
    Path state =
        dir != null
            ? Path.of(dir)
            : Path.of(System.getProperty("user.home"), ".replicapool", "local-cluster");
    return state.resolve("kubeconfig");
  }

  @Override
  public Path kubeconfig() {
    return kubeconfig;
  }

  @Override
  public InetSocketAddress reach(
      KubernetesClient client, String namespace, String service, int port) {
    Service s = client.services().inNamespace(namespace).withName(service).get();
    assertThat(s).as("Service %s/%s", namespace, service).isNotNull();
    return new InetSocketAddress(s.getSpec().getClusterIP(), port);
  }

  /** Brings the cluster down if this test brought it up; fails if down leaves anything behind. */
  @Override
  public void close() {
    if (!startedHere) {
      return;
    }
    HostCommand down = run(300, "down");
    assertThat(down.exit()).as("scripts/local-cluster.sh down:\n%s", down.out()).isZero();
  }

  static HostCommand run(int timeoutSeconds, String... args) {
    List<String> command = new java.util.ArrayList<>(List.of("bash", SCRIPT.toString()));
    command.addAll(List.of(args));
    return HostCommand.run(ROOT, timeoutSeconds, command);
  }
}
