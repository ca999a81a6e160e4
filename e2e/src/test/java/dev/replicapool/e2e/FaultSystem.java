package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.controlplane.ControlPlaneClient;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.dataplane.proxy.ProxySettings;
import dev.replicapool.operator.OperatorConfig;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.CloseLater;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.LocalKubeApiServer;
import dev.replicapool.testing.OnEventLoop;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

/**
 * The pieces of the whole system that the fault and hostile-input tests take apart one by one: the
 * shared real kube-apiserver, operators and data planes in this JVM that a test may stop, restart
 * or multiply, and replicas as real processes. Unlike {@link SystemHarness} it starts nothing but
 * the namespace and the CRD on its own.
 */
final class FaultSystem implements AutoCloseable {
  /** A token no other test uses, so that a leak of it is unmistakable. */
  final String token = "tok-" + UUID.randomUUID();

  final LocalKubeApiServer apiServer = LocalKubeApiServer.get();
  final KubernetesClient client = apiServer.newClient();
  final Kubectl kubectl = new Kubectl(apiServer.kubeConfigFile());
  final String namespace;
  final Vertx vertx = Vertx.vertx();
  final HttpClient http = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(false));

  /** Where the test's client calls start (see {@link OnEventLoop} for why not the test thread). */
  final OnEventLoop onLoop = new OnEventLoop(vertx);

  private final CloseLater toClose = new CloseLater();
  private final List<ReplicaPoolOperator> operators = new ArrayList<>();
  private final List<DataPlane> dataPlanes = new ArrayList<>();

  FaultSystem(String name) {
    Kubectl.Result crd = kubectl.run("apply", "--server-side", "-f", "../crds/");
    assertThat(crd.exitCode()).as(crd.output()).isZero();
    Kubectl.Result established =
        kubectl.run(
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/replicapools.replicapool.dev");
    assertThat(established.exitCode()).as(established.output()).isZero();
    namespace = apiServer.createNamespace(client, name);
  }

  // ---- operators ----

  /** The operator's config as the tests run it: this namespace only, loopback, any free ports. */
  OperatorConfig operatorConfig() {
    return OperatorConfig.local(token).withNamespaces(Set.of(namespace));
  }

  ReplicaPoolOperator startOperator(KubernetesClient kube, OperatorConfig config) {
    ReplicaPoolOperator op = ReplicaPoolOperator.start(kube, config);
    operators.add(op);
    return op;
  }

  ReplicaPoolOperator startOperator() {
    return startOperator(client, operatorConfig());
  }

  // ---- data planes ----

  /** Loopback listeners, small drain time: what a test wants from a data plane. */
  static ProxySettings proxySettings() {
    return ProxySettings.defaults().withListen("127.0.0.1", 0, 0).withDrainMillis(500);
  }

  DataPlane startDataPlane(String node, int controlPlanePort) {
    return startDataPlane(node, controlPlanePort, UnaryOperator.identity());
  }

  DataPlane startDataPlane(String node, int controlPlanePort, UnaryOperator<ProxySettings> tune) {
    DataPlane dp =
        block(
            DataPlane.start(
                vertx,
                new DataPlane.Config(
                    ControlPlaneClient.Options.of("127.0.0.1", controlPlanePort, token, node)
                        .withBackoff(50, 500),
                    tune.apply(proxySettings()),
                    "127.0.0.1",
                    0)));
    dataPlanes.add(dp);
    return dp;
  }

  void stopDataPlane(DataPlane dp) {
    dataPlanes.remove(dp);
    block(dp.stop());
  }

  // ---- replicas ----

  ReplicaProcess replica(String name, String... args) {
    return closeLater(
        ReplicaProcess.start(name, "127.0.0.1", ReplicaProcess.freePort("127.0.0.1"), args));
  }

  /** Starts several replicas at once (their JVMs start in parallel). */
  List<ReplicaProcess> replicas(String... names) {
    List<java.util.concurrent.CompletableFuture<ReplicaProcess>> starting = new ArrayList<>();
    for (String n : names) {
      starting.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> replica(n)));
    }
    return starting.stream().map(java.util.concurrent.CompletableFuture::join).toList();
  }

  // ---- pools ----

  /**
   * A round-robin pool of static members routed by Host {@code <name>.local}, probed every 200 ms
   * with a 100 ms timeout, one failure marking a member Unhealthy (S1's settings).
   */
  ReplicaPool pool(String name, List<String> addresses) {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName(name);
    pool.getMetadata().setNamespace(namespace);
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.endpoints = new ArrayList<>();
    for (String a : addresses) {
      int colon = a.lastIndexOf(':');
      spec.endpoints.add(
          new StaticEndpoint(a.substring(0, colon), Integer.parseInt(a.substring(colon + 1))));
    }
    spec.route = new Route();
    spec.route.hosts = List.of(name + ".local");
    spec.healthCheck.intervalMillis = 200;
    spec.healthCheck.timeoutMillis = 100;
    spec.healthCheck.unhealthyThreshold = 1;
    spec.routing.adaptive.recoverAfterMillis = 2_000;
    pool.setSpec(spec);
    return pool;
  }

  // ---- TLS material ----

  /** A file of the test resources' tls/ folder (certificates and keys made for these tests). */
  static String tlsResource(String name) {
    try (InputStream in = FaultSystem.class.getResourceAsStream("/tls/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Creates a Secret of {@code type} in this namespace with this tls.crt and tls.key. */
  void createTlsSecret(String name, String type, String crt, String key) {
    Base64.Encoder b64 = Base64.getEncoder();
    client
        .secrets()
        .inNamespace(namespace)
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withType(type)
                .addToData("tls.crt", b64.encodeToString(crt.getBytes(StandardCharsets.US_ASCII)))
                .addToData("tls.key", b64.encodeToString(key.getBytes(StandardCharsets.US_ASCII)))
                .build())
        .create();
  }

  ReplicaPool create(ReplicaPool pool) {
    return client.resource(pool).create();
  }

  Resource<ReplicaPool> pool(String name) {
    return client.resources(ReplicaPool.class).inNamespace(namespace).withName(name);
  }

  static Condition condition(ReplicaPool pool, String type) {
    if (pool == null || pool.getStatus() == null) {
      return null;
    }
    return pool.getStatus().conditions.stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst()
        .orElse(null);
  }

  static String conditionStatus(ReplicaPool pool, String type) {
    Condition c = condition(pool, type);
    return c == null ? null : c.getStatus();
  }

  /**
   * Creates the pool and waits until every member is Healthy and {@code dp} routes to all of them.
   * The weight is not awaited: under Adaptive routing one probe that a busy machine times out puts
   * the error rate at 5 %, and at 5 % less a probe it takes about 90 probes before the weight
   * rounds back to 1.0, while the member stays Healthy and routed.
   */
  void createAndAwaitAllRoutable(ReplicaPool pool, DataPlane dp) {
    create(pool);
    String name = pool.getMetadata().getName();
    int n = pool.getSpec().endpoints.size();
    awaitReadyAndSynced(name, Duration.ofSeconds(30));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(pool(name).get().getStatus().endpoints)
                    .as("members of %s", name)
                    .hasSize(n)
                    .allSatisfy(
                        e ->
                            assertThat(e.state)
                                .as("%s (weight %s): %s", e.address, e.weight, e.message)
                                .isEqualTo(MemberState.Healthy)));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> poolOn(status(dp), name).getInteger("routable") == n);
  }

  void awaitReadyAndSynced(String name, Duration within) {
    await()
        .atMost(within)
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              ReplicaPool p = pool(name).get();
              assertThat(conditionStatus(p, "Ready")).as("Ready of %s", name).isEqualTo("True");
              assertThat(conditionStatus(p, "DataPlaneSynced"))
                  .as("DataPlaneSynced of %s", name)
                  .isEqualTo("True");
            });
  }

  List<Event> events(String poolName) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> poolName.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  // ---- the data plane's admin port ----

  record Reply(int status, String body) {}

  Reply admin(DataPlane dp, String path) {
    return httpGet(dp.adminPort(), "127.0.0.1", path);
  }

  Reply httpGet(int port, String host, String path) {
    return call(
        () ->
            http.request(
                    new RequestOptions()
                        .setMethod(HttpMethod.GET)
                        .setHost("127.0.0.1")
                        .setPort(port)
                        .setURI(path)
                        .putHeader("Host", host))
                .compose(req -> req.send())
                .compose(resp -> resp.body().map(b -> new Reply(resp.statusCode(), b.toString()))));
  }

  /** POSTs to a sample replica's /admin (slow, errors, unhealthy, ...); fails unless 2xx. */
  void replicaAdmin(ReplicaProcess r, String pathAndQuery) {
    Reply reply =
        call(
            () ->
                http.request(
                        new RequestOptions()
                            .setMethod(HttpMethod.POST)
                            .setHost(r.host())
                            .setPort(r.port())
                            .setURI("/admin/" + pathAndQuery))
                    .compose(req -> req.send())
                    .compose(
                        resp -> resp.body().map(b -> new Reply(resp.statusCode(), b.toString()))));
    assertThat(reply.status()).as("%s /admin/%s: %s", r.name(), pathAndQuery, reply).isEqualTo(200);
  }

  JsonObject status(DataPlane dp) {
    return new JsonObject(admin(dp, "/status").body());
  }

  /** The pool's entry in a data plane's /status, or null. */
  static JsonObject poolOn(JsonObject status, String poolName) {
    JsonArray pools = status.getJsonArray("pools");
    for (int i = 0; i < pools.size(); i++) {
      JsonObject p = pools.getJsonObject(i);
      if (p.getString("name").endsWith("/" + poolName)) {
        return p;
      }
    }
    return null;
  }

  /** The snapshot version a data plane applied for a pool, -1 when it has none. */
  long versionOn(DataPlane dp, String poolName) {
    JsonObject p = poolOn(status(dp), poolName);
    return p == null ? -1 : p.getLong("version");
  }

  /** Starts a client call on the event loop ({@link #onLoop}) and waits up to 30 s for it. */
  <T> T call(java.util.function.Supplier<Future<T>> call) {
    return block(onLoop.call(call));
  }

  static <T> T block(Future<T> future) {
    try {
      return future.await(30, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("no answer within 30 s", e);
    }
  }

  <T extends AutoCloseable> T closeLater(T c) {
    return toClose.add(c);
  }

  @Override
  public void close() {
    toClose.closeAll();
    for (DataPlane dp : dataPlanes) {
      try {
        block(dp.stop());
      } catch (RuntimeException | AssertionError ignored) {
        // best effort
      }
    }
    for (ReplicaPoolOperator op : operators) {
      op.close();
    }
    vertx.close().await();
    client.close();
  }
}
