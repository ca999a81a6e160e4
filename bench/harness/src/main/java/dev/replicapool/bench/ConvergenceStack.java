package dev.replicapool.bench;

import dev.replicapool.controlplane.ControlPlaneClient;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.dataplane.proxy.ProxySettings;
import dev.replicapool.operator.OperatorConfig;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.LocalKubeApiServer;
import dev.replicapool.testing.ReplicaPools;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The real stack ConvergenceBenchmark measures, wired as e2e's SystemHarness wires it: a real
 * kube-apiserver and etcd (LocalKubeApiServer) with the CRD installed, a namespace of its own, the
 * operator watching that namespace and a data plane dialling the operator, both in this JVM.
 */
record ConvergenceStack(
    LocalKubeApiServer api,
    KubernetesClient client,
    String namespace,
    ReplicaPoolOperator operator,
    Vertx vertx,
    DataPlane dataPlane) {
  private static final String TOKEN = "bench-token";

  static ConvergenceStack start(Path crds) throws Exception {
    LocalKubeApiServer api = LocalKubeApiServer.get();
    KubernetesClient client = api.newClient();
    ReplicaPools.installCrd(new Kubectl(api.kubeConfigFile()), crds);
    String ns = api.createNamespace(client, "bench");
    ReplicaPoolOperator operator =
        ReplicaPoolOperator.start(
            client, OperatorConfig.local(TOKEN).withNamespaces(Set.of(ns)).withPorts(0, 0));
    Vertx vertx = Vertx.vertx();
    DataPlane dp =
        DataPlane.start(
                vertx,
                new DataPlane.Config(
                    ControlPlaneClient.Options.of(
                            "127.0.0.1", operator.controlPlanePort(), TOKEN, "dp-bench")
                        .withBackoff(50, 500),
                    ProxySettings.defaults().withListen("127.0.0.1", 0, -1),
                    "127.0.0.1",
                    0))
            .await(30, TimeUnit.SECONDS);
    return new ConvergenceStack(api, client, ns, operator, vertx, dp);
  }

  void stop() throws Exception {
    dataPlane.stop().await(10, TimeUnit.SECONDS);
    operator.close();
    vertx.close().await();
    client.close();
  }
}
