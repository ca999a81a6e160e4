package dev.replicapool.local;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.testing.LocalKubeApiServer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The cluster a local run talks to (that of --kubeconfig, or a local kube-apiserver), the
 * kubeconfig file that reaches it, and what the run does in it: install the CRD, apply the example
 * pools, wait until they are Ready. {@link LocalRunMain} starts the processes around it.
 */
record LocalCluster(KubernetesClient client, Path kubeconfig, LocalProgress progress) {
  /**
   * The cluster of --kubeconfig, or a local kube-apiserver whose kubeconfig goes to stateDir.
   * Begins a step; the caller ends it once it keeps the client.
   */
  static LocalCluster connect(Map<String, String> flags, Path stateDir, LocalProgress progress)
      throws IOException {
    if (flags.containsKey("kubeconfig")) {
      Path kubeconfig = Path.of(flags.get("kubeconfig")).toAbsolutePath();
      progress.begin("connecting to the cluster of " + kubeconfig);
      KubernetesClient client =
          new KubernetesClientBuilder()
              .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
              .build();
      return new LocalCluster(client, kubeconfig, progress);
    }
    progress.begin("starting a local kube-apiserver and etcd (kube-api-test)");
    LocalKubeApiServer apiServer;
    try {
      apiServer = LocalKubeApiServer.get();
    } catch (RuntimeException e) {
      throw new LocalRunMain.Failure(
          e.getMessage(),
          "run scripts/provision-k8s.sh (it needs Go and the Debian package etcd-server)",
          e);
    }
    Path kubeconfig = stateDir.resolve("kubeconfig").toAbsolutePath();
    Files.writeString(kubeconfig, apiServer.kubeConfigYaml());
    return new LocalCluster(apiServer.newClient(), kubeconfig, progress);
  }

  void installCrd() throws IOException {
    progress.begin("installing the ReplicaPool CRD");
    try (InputStream crd =
        Files.newInputStream(
            LocalRunMain.findRepoFile("crds/replicapools.replicapool.dev-v1.yml"))) {
      client.load(crd).serverSideApply();
    }
    client
        .apiextensions()
        .v1()
        .customResourceDefinitions()
        .withName("replicapools.replicapool.dev")
        .waitUntilCondition(
            c ->
                c.getStatus() != null
                    && c.getStatus().getConditions().stream()
                        .anyMatch(
                            x -> "Established".equals(x.getType()) && "True".equals(x.getStatus())),
            30,
            TimeUnit.SECONDS);
    progress.done();
  }

  List<HasMetadata> applyExamplePools(String namespace) throws IOException {
    progress.begin("applying examples/local-pools.yaml");
    String pools =
        Files.readString(LocalRunMain.findRepoFile("examples/local-pools.yaml"))
            .replace("namespace: default", "namespace: " + namespace);
    List<HasMetadata> applied =
        client.load(new ByteArrayInputStream(pools.getBytes())).serverSideApply();
    progress.done();
    return applied;
  }

  void awaitPoolsReady(String namespace, List<HasMetadata> applied) {
    progress.begin("waiting for every pool to be Ready");
    for (HasMetadata pool : applied) {
      client
          .resources(ReplicaPool.class)
          .inNamespace(namespace)
          .withName(pool.getMetadata().getName())
          .waitUntilCondition(
              p ->
                  p != null
                      && p.getStatus() != null
                      && p.getStatus().conditions.stream()
                          .anyMatch(
                              c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())),
              60,
              TimeUnit.SECONDS);
    }
    progress.done();
  }
}
