package dev.replicapool.e2e;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * A real cluster the install e2e runs on, with the project's images already in its node's
 * containerd: kind in Docker ({@link KindCluster}) or scripts/local-cluster.sh ({@link
 * LocalCluster}). Which one only changes how the test reaches the cluster and its Services.
 */
interface E2eCluster extends AutoCloseable {
  String IMAGE_TAG = System.getProperty("replicapool.image.tag", "0.1.0");

  /** An admin kubeconfig for kubectl and the client. */
  Path kubeconfig();

  /** Where this test process reaches port {@code port} of a Service (made reachable if need be). */
  InetSocketAddress reach(KubernetesClient client, String namespace, String service, int port);

  @Override
  void close();
}
