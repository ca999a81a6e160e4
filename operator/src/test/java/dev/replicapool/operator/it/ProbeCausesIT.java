package dev.replicapool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.AppProtocol;
import dev.replicapool.api.v1alpha1.CaCertificateSource;
import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.HealthCheckType;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.api.v1alpha1.UpstreamTls;
import dev.replicapool.operator.probing.GrpcHealthServer;
import dev.replicapool.operator.probing.TestCertificates;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each kind of probe failure against a real server, as a user reads it: the words in the member's
 * status message and in its Warning Event, and the cause label of the probe counter. An operator on
 * a real API server probes real replica processes (sample replica, with its /admin/ switches), a
 * closed port, and grpc-java TLS servers whose certificate names another host, was signed by a CA
 * the pool does not trust, or has expired.
 */
class ProbeCausesIT {
  static OperatorHarness h;
  static final HttpClient http = HttpClient.newHttpClient();
  @TempDir static Path dir;

  @BeforeAll
  static void start() {
    h = new OperatorHarness("causes");
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static ReplicaPool pool(String name, String host, int port) {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName(name);
    pool.getMetadata().setNamespace(h.namespace);
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.endpoints = new ArrayList<>(List.of(new StaticEndpoint(host, port)));
    spec.healthCheck.intervalMillis = 200;
    spec.healthCheck.timeoutMillis = 100;
    spec.healthCheck.unhealthyThreshold = 1;
    pool.setSpec(spec);
    return pool;
  }

  static void admin(ReplicaProcess r, String op) throws Exception {
    HttpResponse<String> answer =
        http.send(
            HttpRequest.newBuilder(URI.create("http://" + r.address() + "/admin/" + op))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
  }

  /** The member's row once its message says {@code words}, within 30 s. */
  static void awaitMemberMessage(String pool, MemberState state, String words) {
    h.awaitPool(
        pool,
        Duration.ofSeconds(30),
        p -> {
          assertThat(p.getStatus()).isNotNull();
          assertThat(p.getStatus().endpoints).hasSize(1);
          EndpointStatus row = p.getStatus().endpoints.get(0);
          assertThat(row.state).isEqualTo(state);
          assertThat(row.message).contains(words);
        });
  }

  /** A Warning Event of the pool that says {@code words}, within 30 s. */
  static void awaitWarning(String pool, String words) {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(h.client.v1().events().inNamespace(h.namespace).list().getItems())
                    .filteredOn(e -> pool.equals(e.getInvolvedObject().getName()))
                    .filteredOn(e -> "Warning".equals(e.getType()))
                    .anySatisfy(e -> assertThat(e.getMessage()).contains(words)));
  }

  static void awaitHealthy(String pool) {
    h.awaitPool(
        pool,
        Duration.ofSeconds(30),
        p ->
            assertThat(p.getStatus().endpoints)
                .extracting(e -> e.state)
                .containsOnly(MemberState.Healthy));
  }

  /** Prometheus text of the operator's admin port. */
  static String metrics() throws Exception {
    return http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + h.operator.adminPort() + "/metrics"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  static void awaitFailureCounted(String pool, String cause) {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(metrics())
                    .contains(
                        "replicapool_probes_total{cause=\""
                            + cause
                            + "\",pool=\""
                            + h.namespace
                            + "/"
                            + pool
                            + "\",result=\"failure\"}"));
  }

  @Test
  void aClosedPortIsConnectionRefused() {
    int closed = ReplicaProcess.freePort("127.0.0.1");
    h.client.resource(pool("refused", "127.0.0.1", closed)).create();

    // Past the startup grace (10 intervals) it is Unhealthy, saying it never answered and why.
    awaitMemberMessage("refused", MemberState.Unhealthy, "never answered");
    awaitMemberMessage("refused", MemberState.Unhealthy, "connection refused");
    awaitWarning("refused", "connection refused");
    awaitFailureCounted("refused", "refused");
  }

  @Test
  void aFrozenReplicaTimesOut() {
    ReplicaProcess frozen =
        h.closeLater(
            ReplicaProcess.start("frozen", "127.0.0.1", ReplicaProcess.freePort("127.0.0.1")));
    h.client.resource(pool("frozen", frozen.host(), frozen.port())).create();
    awaitHealthy("frozen");

    frozen.freeze();
    try {
      awaitMemberMessage("frozen", MemberState.Unhealthy, "1 probe failed: timeout after 100 ms");
      awaitWarning("frozen", "timeout after 100 ms");
      awaitFailureCounted("frozen", "timeout");
    } finally {
      frozen.thaw();
    }
  }

  @Test
  void aFailingReplicaAnswersHttp500() throws Exception {
    ReplicaProcess failing =
        h.closeLater(
            ReplicaProcess.start("failing", "127.0.0.1", ReplicaProcess.freePort("127.0.0.1")));
    h.client.resource(pool("http500", failing.host(), failing.port())).create();
    awaitHealthy("http500");

    admin(failing, "errors?rate=1"); // every answer, /healthz included, is a 500

    awaitMemberMessage("http500", MemberState.Unhealthy, "1 probe failed: HTTP 500");
    awaitWarning("http500", "HTTP 500");
    awaitFailureCounted("http500", "http_status");
  }

  @Test
  void aGrpcReplicaThatIsNotServing() throws Exception {
    int grpcPort = ReplicaProcess.freePort("127.0.0.1");
    ReplicaProcess replica =
        h.closeLater(
            ReplicaProcess.start(
                "grpc",
                "127.0.0.1",
                ReplicaProcess.freePort("127.0.0.1"),
                "--grpc-port",
                Integer.toString(grpcPort)));
    ReplicaPool pool = pool("grpc", replica.host(), grpcPort);
    pool.getSpec().appProtocol = AppProtocol.H2C;
    pool.getSpec().healthCheck.type = HealthCheckType.GRPC;
    h.client.resource(pool).create();
    awaitHealthy("grpc");

    admin(replica, "unhealthy"); // its grpc.health.v1 service says NOT_SERVING

    awaitMemberMessage("grpc", MemberState.Unhealthy, "1 probe failed: gRPC NOT_SERVING");
    awaitWarning("grpc", "gRPC NOT_SERVING");
    awaitFailureCounted("grpc", "grpc_status");
  }

  /** A gRPC-over-TLS pool of {@code server}, verified against the CA in ConfigMap {@code ca}. */
  static void tlsPool(String name, GrpcHealthServer server, String caPem, String serverName) {
    h.client
        .configMaps()
        .inNamespace(h.namespace)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name + "-ca")
                .endMetadata()
                .addToData("ca.crt", caPem)
                .build())
        .create();
    ReplicaPool pool = pool(name, "127.0.0.1", server.port());
    pool.getSpec().appProtocol = AppProtocol.HTTPS;
    pool.getSpec().healthCheck.type = HealthCheckType.GRPC;
    pool.getSpec().upstreamTls = new UpstreamTls();
    pool.getSpec().upstreamTls.ca = new CaCertificateSource();
    pool.getSpec().upstreamTls.ca.configMapName = name + "-ca";
    pool.getSpec().upstreamTls.serverName = serverName;
    h.client.resource(pool).create();
  }

  static TestCertificates certs() throws Exception {
    return new TestCertificates(Files.createTempDirectory(dir, "certs"));
  }

  @Test
  void aCertificateForAnotherName() throws Exception {
    TestCertificates certs = certs();
    GrpcHealthServer server = h.closeLater(GrpcHealthServer.tls(certs, false));
    // The certificate names tracking.internal and 127.0.0.1, not this.
    tlsPool("wrong-name", server, certs.pem(certs.caCert), "billing.internal");

    awaitMemberMessage("wrong-name", MemberState.Unhealthy, "never answered");
    awaitMemberMessage("wrong-name", MemberState.Unhealthy, "TLS: certificate for another name");
    awaitWarning("wrong-name", "TLS: certificate for another name");
    awaitFailureCounted("wrong-name", "tls_name");
  }

  @Test
  void aCertificateSignedByAnotherCa() throws Exception {
    TestCertificates certs = certs();
    GrpcHealthServer server = h.closeLater(GrpcHealthServer.tls(certs, false));
    tlsPool("untrusted", server, certs.pem(certs.otherCaCert), "tracking.internal");

    awaitMemberMessage("untrusted", MemberState.Unhealthy, "TLS: untrusted certificate");
    awaitWarning("untrusted", "TLS: untrusted certificate");
    awaitFailureCounted("untrusted", "tls_untrusted");
  }

  @Test
  void anExpiredCertificate() throws Exception {
    TestCertificates certs = certs();
    Path expired = certs.expiredServerCert();
    GrpcHealthServer server =
        h.closeLater(GrpcHealthServer.tls(expired, certs.dir.resolve("expired.key")));
    tlsPool("expired", server, certs.pem(certs.caCert), "tracking.internal");

    awaitMemberMessage("expired", MemberState.Unhealthy, "TLS: certificate expired");
    awaitWarning("expired", "TLS: certificate expired");
    awaitFailureCounted("expired", "tls_expired");
  }
}
