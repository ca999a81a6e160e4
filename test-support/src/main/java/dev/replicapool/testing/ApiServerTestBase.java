package dev.replicapool.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A test class on the shared kube-apiserver ({@link LocalKubeApiServer#get()}): before the class's
 * own {@code @BeforeAll} (JUnit runs a superclass's first) it has a client with the API server's
 * admin rights and kubectl on the same kubeconfig; after its {@code @AfterAll} the client is
 * closed. The API server stays up for the classes after. Used by the crds ITs and the e2e ITs of
 * the rendered manifests.
 */
public abstract class ApiServerTestBase {
  protected static LocalKubeApiServer apiServer;
  protected static KubernetesClient client;
  protected static Kubectl kubectl;

  @BeforeAll
  static void openApiServerClients() {
    apiServer = LocalKubeApiServer.get();
    client = apiServer.newClient();
    kubectl = new Kubectl(apiServer.kubeConfigFile());
  }

  @AfterAll
  static void closeApiServerClient() {
    client.close();
  }
}
