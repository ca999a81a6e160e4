package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.controlplane.ControlPlaneClient;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.dataplane.accesslog.AccessLogConfig;
import dev.replicapool.dataplane.proxy.ProxySettings;
import dev.replicapool.dataplane.tracing.TracingConfig;
import dev.replicapool.operator.OperatorConfig;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.CloseLater;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.LocalKubeApiServer;
import dev.replicapool.testing.ReplicaPools;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * The whole system on one machine: real kube-apiserver, the operator and a data plane in this JVM
 * (as the local run has them), replicas as separate processes.
 */
final class SystemHarness implements AutoCloseable {
  static final String TOKEN = "e2e-token";
  private static final java.net.http.HttpClient ADMIN = java.net.http.HttpClient.newHttpClient();

  final LocalKubeApiServer apiServer = LocalKubeApiServer.get();
  final KubernetesClient client = apiServer.newClient();
  final Kubectl kubectl = new Kubectl(apiServer.kubeConfigFile());
  final String namespace;
  final ReplicaPoolOperator operator;
  final Vertx vertx = Vertx.vertx();
  final DataPlane dataPlane;
  private final java.net.http.HttpClient admin =
      java.net.http.HttpClient.newBuilder()
          .version(java.net.http.HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  /** S1's client: one keep-alive connection to the traffic port, requests one after another. */
  private KeepAliveClient traffic;

  private final CloseLater toClose = new CloseLater();
  private int operatorPort;

  SystemHarness(String name) {
    this(name, UnaryOperator.identity());
  }

  /**
   * @param operatorConfig edits the operator's configuration before its one start (group tokens,
   *     say): a test that needs another configuration gets it from the start instead of restarting
   *     the operator on its port, which races the data planes redialling that port
   */
  SystemHarness(String name, UnaryOperator<OperatorConfig> operatorConfig) {
    this(name, operatorConfig, TracingConfig.OFF);
  }

  /** With the data plane's tracing as {@code dataPlaneTracing} says. */
  SystemHarness(
      String name, UnaryOperator<OperatorConfig> operatorConfig, TracingConfig dataPlaneTracing) {
    ReplicaPools.installCrd(kubectl, java.nio.file.Path.of("../crds/"));
    namespace = apiServer.createNamespace(client, name);
    operator =
        ReplicaPoolOperator.start(
            client,
            operatorConfig.apply(
                OperatorConfig.local(TOKEN).withNamespaces(Set.of(namespace)).withPorts(0, 0)));
    operatorPort = operator.controlPlanePort();
    dataPlane =
        block(
            DataPlane.start(
                vertx,
                new DataPlane.Config(
                    ControlPlaneClient.Options.of("127.0.0.1", operatorPort, TOKEN, "dp-" + name)
                        .withBackoff(50, 500),
                    ProxySettings.defaults().withListen("127.0.0.1", 0, 0),
                    "127.0.0.1",
                    0,
                    AccessLogConfig.OFF,
                    dataPlaneTracing)));
  }

  int operatorPort() {
    return operatorPort;
  }

  /**
   * Starts one more data plane of the operator, named {@code node}, serving {@code group} (null:
   * the default group) with {@code token}; stopped with this.
   */
  DataPlane extraDataPlane(String node, String group, String token) {
    ControlPlaneClient.Options cp =
        ControlPlaneClient.Options.of("127.0.0.1", operatorPort, token, node).withBackoff(50, 500);
    DataPlane dp =
        block(
            DataPlane.start(
                vertx,
                new DataPlane.Config(
                    group == null ? cp : cp.withGroup(group),
                    ProxySettings.defaults().withListen("127.0.0.1", 0, 0),
                    "127.0.0.1",
                    0)));
    closeLater(() -> block(dp.stop()));
    return dp;
  }

  /**
   * Starts replicas of these names on free loopback ports, one after the other; closed with this.
   */
  List<ReplicaProcess> replicas(String... names) {
    List<ReplicaProcess> started = new ArrayList<>();
    for (String name : names) {
      started.add(
          closeLater(
              ReplicaProcess.start(name, "127.0.0.1", ReplicaProcess.freePort("127.0.0.1"))));
    }
    return started;
  }

  /**
   * A round-robin pool of these members routed by Host {@code <name>.local}, probed every 200 ms
   * with a 100 ms timeout, one failure marking a member Unhealthy (S1's checks); a scenario adds
   * the rest of its spec.
   */
  ReplicaPool pool(String name, List<ReplicaProcess> members) {
    return ReplicaPools.staticPool(
        namespace,
        name,
        members.stream().map(r -> new StaticEndpoint(r.host(), r.port())).toList());
  }

  Resource<ReplicaPool> pool(String name) {
    return client.resources(ReplicaPool.class).inNamespace(namespace).withName(name);
  }

  static String condition(ReplicaPool pool, String type) {
    return ReplicaPools.conditionStatus(pool, type);
  }

  void awaitReadyAndSynced(String name) {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              ReplicaPool p = pool(name).get();
              assertThat(condition(p, "Ready")).isEqualTo("True");
              assertThat(condition(p, "DataPlaneSynced")).isEqualTo("True");
            });
  }

  /**
   * GET {@code path} of the operator's admin port (/metrics, /dataplanes...): it must answer 200.
   */
  java.net.http.HttpResponse<String> operatorAdmin(String path) {
    try {
      java.net.http.HttpResponse<String> r =
          ADMIN.send(
              java.net.http.HttpRequest.newBuilder(
                      java.net.URI.create("http://127.0.0.1:" + operator.adminPort() + path))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as("GET %s", path).isEqualTo(200);
      return r;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Result of one request through the data plane. */
  record Answer(int status, String replica) {}

  Answer get(String host, String path) {
    try {
      if (traffic == null) {
        traffic = new KeepAliveClient("127.0.0.1", dataPlane.trafficPort());
      }
      KeepAliveClient.Response r = traffic.get(host, path);
      return new Answer(r.status(), r.replica());
    } catch (java.io.IOException e) {
      // A lost answer counts as a failed request; the next request opens a new connection.
      closeTraffic();
      return new Answer(-1, null);
    }
  }

  /** Connections the traffic client opened so far. */
  int trafficConnections() {
    return traffic == null ? 0 : traffic.connections();
  }

  private void closeTraffic() {
    if (traffic != null) {
      try {
        traffic.close();
      } catch (java.io.IOException ignored) {
        // already gone
      }
      traffic = null;
    }
  }

  /** Sends n requests one after another; counts answers by replica, and failures under "!NNN". */
  TreeMap<String, Integer> sequential(String host, int n) {
    TreeMap<String, Integer> counts = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      Answer a = get(host, "/track/" + i);
      String key = a.status() == 200 ? a.replica() : "!" + a.status();
      counts.merge(key, 1, Integer::sum);
    }
    return counts;
  }

  /** The data plane's /status, through the JDK's client (each call bounded to 10 s). */
  JsonObject dataPlaneStatus() {
    try {
      var response =
          admin.send(
              java.net.http.HttpRequest.newBuilder(
                      java.net.URI.create("http://127.0.0.1:" + dataPlane.adminPort() + "/status"))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      return new JsonObject(response.body());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Waits for a Vert.x future from the test thread, at most 30 s. */
  static <T> T block(io.vertx.core.Future<T> future) {
    try {
      return future.await(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("no answer within 30 s", e);
    }
  }

  <T extends AutoCloseable> T closeLater(T c) {
    return toClose.add(c);
  }

  @Override
  public void close() {
    closeTraffic();
    toClose.closeAll();
    try {
      block(dataPlane.stop());
    } catch (Exception ignored) {
      // best effort
    }
    operator.close();
    vertx.close().await();
    client.close();
  }
}
