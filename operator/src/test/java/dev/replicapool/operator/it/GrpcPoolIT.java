package dev.replicapool.operator.it;

import static dev.replicapool.operator.it.OperatorHarness.condition;
import static dev.replicapool.operator.it.OperatorHarness.conditionMessage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.AppProtocol;
import dev.replicapool.api.v1alpha1.CaCertificateSource;
import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.HealthCheckType;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.api.v1alpha1.UpstreamTls;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.UpstreamTlsMaterial;
import dev.replicapool.controlplane.ControlPlaneClient;
import dev.replicapool.controlplane.SnapshotApplier;
import dev.replicapool.operator.probing.GrpcHealthServer;
import dev.replicapool.operator.probing.TestCertificates;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pools of real grpc-java members (grpc.health.v1 via HealthStatusManager) checked with type GRPC
 * by the operator on a real API server: over h2c, and over mutual TLS with the CA from a ConfigMap
 * and the client certificate from a kubernetes.io/tls Secret. A real control-plane client, as a
 * data plane, checks what the snapshots carry.
 */
class GrpcPoolIT {
  static OperatorHarness h;
  static final List<GrpcHealthServer> members = new ArrayList<>();

  /** What a data plane got: the last snapshot of each pool, from a real control-plane client. */
  static final Map<String, PoolSnapshot> received = new ConcurrentHashMap<>();

  static Vertx vertx;
  static ControlPlaneClient dataPlane;
  @TempDir static Path dir;

  @BeforeAll
  static void start() {
    h = new OperatorHarness("grpc");
    for (int i = 0; i < 3; i++) {
      members.add(h.closeLater(GrpcHealthServer.plain()));
    }
    vertx = Vertx.vertx();
    dataPlane =
        new ControlPlaneClient(
            vertx,
            ControlPlaneClient.Options.of(
                "127.0.0.1", h.operator.controlPlanePort(), "test-token", "grpc-it"),
            new SnapshotApplier() {
              @Override
              public Future<Void> apply(PoolSnapshot snapshot) {
                received.put(snapshot.pool(), snapshot);
                return Future.succeededFuture();
              }

              @Override
              public Future<Void> remove(String pool, long version) {
                received.remove(pool);
                return Future.succeededFuture();
              }
            },
            new Random(1));
    dataPlane.start();
  }

  @AfterAll
  static void stop() {
    dataPlane.stop().await();
    vertx.close().await();
    h.close();
  }

  static ReplicaPool pool(String name, AppProtocol protocol, List<GrpcHealthServer> servers) {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName(name);
    pool.getMetadata().setNamespace(h.namespace);
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.appProtocol = protocol;
    spec.endpoints = new ArrayList<>();
    servers.forEach(s -> spec.endpoints.add(new StaticEndpoint("127.0.0.1", s.port())));
    spec.route = new Route();
    spec.route.hosts = List.of(name + ".local");
    spec.healthCheck.type = HealthCheckType.GRPC;
    spec.healthCheck.intervalMillis = 200;
    spec.healthCheck.timeoutMillis = 150;
    spec.healthCheck.unhealthyThreshold = 1;
    pool.setSpec(spec);
    return pool;
  }

  static EndpointStatus row(ReplicaPool p, int port) {
    return p.getStatus().endpoints.stream()
        .filter(e -> e.address.equals("127.0.0.1:" + port))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void grpcMembersBecomeReadyAndANotServingOneTurnsUnhealthy() {
    h.client.resource(pool("tracking", AppProtocol.H2C, members)).create();
    h.awaitPool(
        "tracking",
        Duration.ofSeconds(30),
        p -> {
          assertThat(condition(p, "Ready")).isEqualTo("True");
          assertThat(p.getStatus().routable).isEqualTo(3);
        });
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              PoolSnapshot s = received.get(h.namespace + "/tracking");
              assertThat(s).isNotNull();
              assertThat(s.appProtocol()).isEqualTo("kubernetes.io/h2c");
              assertThat(s.upstreamTls()).isNull();
            });

    GrpcHealthServer second = members.get(1);
    second.serving(false);
    h.awaitPool(
        "tracking",
        Duration.ofSeconds(10),
        p -> {
          assertThat(p.getStatus().routable).isEqualTo(2);
          assertThat(row(p, second.port()).state).isEqualTo(MemberState.Unhealthy);
          assertThat(condition(p, "Degraded")).isEqualTo("True");
          assertThat(conditionMessage(p, "Degraded")).contains("127.0.0.1:" + second.port());
        });

    second.serving(true);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(row(h.pool("tracking").get(), second.port()).state)
                    .isNotEqualTo(MemberState.Unhealthy));
  }

  @Test
  void mutualTlsMembersAreHealthyOnceTheirCaConfigMapExists() throws Exception {
    TestCertificates certs = new TestCertificates(dir);
    GrpcHealthServer tlsMember = h.closeLater(GrpcHealthServer.tls(certs, true));
    h.client
        .secrets()
        .inNamespace(h.namespace)
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("tracking-client")
                .endMetadata()
                .withType("kubernetes.io/tls")
                .addToData("tls.crt", base64(certs.pem(certs.clientCert)))
                .addToData("tls.key", base64(certs.pem(certs.clientKey)))
                .build())
        .create();
    ReplicaPool pool = pool("secure", AppProtocol.HTTPS, List.of(tlsMember));
    pool.getSpec().upstreamTls = new UpstreamTls();
    pool.getSpec().upstreamTls.ca = new CaCertificateSource();
    pool.getSpec().upstreamTls.ca.configMapName = "tracking-ca";
    pool.getSpec().upstreamTls.serverName = "tracking.internal";
    pool.getSpec().upstreamTls.clientCertificateSecretName = "tracking-client";
    h.client.resource(pool).create();

    // No CA yet: the configuration says so, and the member fails its probes (default roots).
    h.awaitPool(
        "secure",
        Duration.ofSeconds(30),
        p -> {
          assertThat(condition(p, "ConfigurationValid")).isEqualTo("False");
          assertThat(conditionMessage(p, "ConfigurationValid"))
              .contains("upstreamTls CA ConfigMap tracking-ca not found");
          assertThat(p.getStatus().routable).isZero();
          assertThat(warnings("secure"))
              .anyMatch(e -> e.getMessage().contains("tracking-ca not found"));
        });

    h.client
        .configMaps()
        .inNamespace(h.namespace)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("tracking-ca")
                .endMetadata()
                .addToData("ca.crt", certs.pem(certs.caCert))
                .build())
        .create();
    h.awaitPool(
        "secure",
        Duration.ofSeconds(30),
        p -> {
          assertThat(condition(p, "ConfigurationValid")).isEqualTo("True");
          assertThat(condition(p, "Ready")).isEqualTo("True");
          assertThat(p.getStatus().routable).isEqualTo(1);
        });
    // The data planes get the same material the prober used.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              PoolSnapshot s = received.get(h.namespace + "/secure");
              assertThat(s.appProtocol()).isEqualTo("https");
              assertThat(s.upstreamTls())
                  .isEqualTo(
                      new UpstreamTlsMaterial(
                          certs.pem(certs.caCert),
                          "tracking.internal",
                          certs.pem(certs.clientCert),
                          certs.pem(certs.clientKey),
                          false));
            });
  }

  private static List<Event> warnings(String pool) {
    return h.client.v1().events().inNamespace(h.namespace).list().getItems().stream()
        .filter(e -> pool.equals(e.getInvolvedObject().getName()))
        .filter(e -> "Warning".equals(e.getType()))
        .toList();
  }

  private static String base64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}
