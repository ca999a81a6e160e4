package dev.replicapool.operator.it;

import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.controlplane.ControlPlaneClient;
import dev.replicapool.controlplane.SnapshotApplier;
import dev.replicapool.operator.OperatorConfig;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.CloseLater;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.LocalKubeApiServer;
import dev.replicapool.testing.ReplicaPools;
import dev.replicapool.testing.TcpProxy;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

/**
 * A real API server with the CRD installed, a namespace, and an operator running in-process. The
 * test's own client always talks to the API server directly; the operator's may go through a {@link
 * TcpProxy} the test can cut ({@link #link}).
 */
final class OperatorHarness implements AutoCloseable {
  final LocalKubeApiServer apiServer = LocalKubeApiServer.get();
  final KubernetesClient client = apiServer.newClient();
  final Kubectl kubectl = new Kubectl(apiServer.kubeConfigFile());
  final String namespace;
  final ReplicaPoolOperator operator;

  /** Between the operator and the API server; null when the operator uses the test's client. */
  final TcpProxy link;

  private final KubernetesClient operatorClient;
  private final CloseLater toClose = new CloseLater();

  OperatorHarness(String testName) {
    this(testName, false);
  }

  /**
   * @param throughLink whether the operator reaches the API server through {@link #link}
   */
  OperatorHarness(String testName, boolean throughLink) {
    ReplicaPools.installCrd(kubectl, java.nio.file.Path.of("../crds/"));
    namespace = apiServer.createNamespace(client, testName);
    if (throughLink) {
      URI api = URI.create(Config.fromKubeconfig(apiServer.kubeConfigYaml()).getMasterUrl());
      link = TcpProxy.start(api.getHost(), api.getPort());
      Config viaLink = Config.fromKubeconfig(apiServer.kubeConfigYaml());
      viaLink.setMasterUrl("https://127.0.0.1:" + link.port());
      operatorClient = new KubernetesClientBuilder().withConfig(viaLink).build();
    } else {
      link = null;
      operatorClient = client;
    }
    operator =
        ReplicaPoolOperator.start(
            operatorClient,
            OperatorConfig.local("test-token").withNamespaces(java.util.Set.of(namespace)));
  }

  /** {@link ReplicaPools#staticPool} in this namespace, its members given as "host:port". */
  ReplicaPool staticPool(String name, List<String> endpoints) {
    return ReplicaPools.staticPool(
        namespace,
        name,
        endpoints.stream()
            .map(
                e -> {
                  int colon = e.lastIndexOf(':');
                  return new StaticEndpoint(
                      e.substring(0, colon), Integer.parseInt(e.substring(colon + 1)));
                })
            .toList());
  }

  Resource<ReplicaPool> pool(String name) {
    return client.resources(ReplicaPool.class).inNamespace(namespace).withName(name);
  }

  /**
   * Waits up to {@code atMost} until the pool, read afresh at each poll, passes every assertion of
   * {@code assertions}.
   */
  void awaitPool(String name, Duration atMost, Consumer<ReplicaPool> assertions) {
    await().atMost(atMost).untilAsserted(() -> assertions.accept(pool(name).get()));
  }

  static String condition(ReplicaPool pool, String type) {
    return ReplicaPools.conditionStatus(pool, type);
  }

  static String conditionMessage(ReplicaPool pool, String type) {
    return ReplicaPools.conditionMessage(pool, type);
  }

  /**
   * Connects a real control-plane client that applies every snapshot, as a data plane of the
   * default group that accepts all: without a data plane no pool is Programmed, so none is Ready.
   */
  void connectAcceptingDataPlane() {
    Vertx vertx = Vertx.vertx();
    ControlPlaneClient dataPlane =
        new ControlPlaneClient(
            vertx,
            ControlPlaneClient.Options.of(
                "127.0.0.1", operator.controlPlanePort(), "test-token", "accepting-" + namespace),
            new SnapshotApplier() {
              @Override
              public Future<Void> apply(PoolSnapshot snapshot) {
                return Future.succeededFuture();
              }

              @Override
              public Future<Void> remove(String pool, long version) {
                return Future.succeededFuture();
              }
            },
            new Random(1));
    dataPlane.start();
    closeLater(() -> vertx.close().await());
    closeLater(() -> dataPlane.stop().await());
  }

  <T extends AutoCloseable> T closeLater(T c) {
    return toClose.add(c);
  }

  @Override
  public void close() {
    toClose.closeAll();
    operator.close();
    if (link != null) {
      link.close();
      operatorClient.close();
    }
    client.close();
  }
}
