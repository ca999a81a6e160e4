package dev.replicapool.e2e;

import static dev.replicapool.e2e.SystemHarness.block;
import static dev.replicapool.e2e.SystemHarness.condition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.api.v1alpha1.Tls;
import dev.replicapool.testing.OnEventLoop;
import dev.replicapool.testing.ReplicaPools;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.SocketAddress;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS from a Kubernetes Secret to the data plane's listener, replaced live when the Secret changes;
 * and a snapshot the data plane refuses, whose NACK reason shows in the pool's status while every
 * other pool keeps serving.
 */
class ScenarioTlsAndNackIT {
  static SystemHarness h;
  static ReplicaProcess replica;

  @BeforeAll
  static void start() {
    h = new SystemHarness("tls");
    replica =
        h.closeLater(ReplicaProcess.start("t1", "127.0.0.1", ReplicaProcess.freePort("127.0.0.1")));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static String resource(String name) {
    try (InputStream in = ScenarioTlsAndNackIT.class.getResourceAsStream("/tls/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static Secret tlsSecret(String name, String certFile, String keyFile) {
    return new SecretBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(h.namespace)
        .endMetadata()
        .withType("kubernetes.io/tls")
        .withStringData(Map.of("tls.crt", resource(certFile), "tls.key", resource(keyFile)))
        .build();
  }

  static ReplicaPool pool(String name, String host) {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName(name);
    pool.getMetadata().setNamespace(h.namespace);
    pool.setSpec(new ReplicaPoolSpec());
    pool.getSpec().endpoints =
        new ArrayList<>(List.of(new StaticEndpoint(replica.host(), replica.port())));
    pool.getSpec().route = new Route();
    pool.getSpec().route.hosts = List.of(host);
    return pool;
  }

  /** An HTTPS request to the data plane's TLS port with SNI; returns the status and served cert. */
  record Served(int status, String replica, X509Certificate certificate) {}

  static Served https(String host, String trustPemFile) {
    HttpClient client =
        h.vertx.createHttpClient(
            new HttpClientOptions()
                .setSsl(true)
                .setForceSni(true)
                .setTrustOptions(
                    new PemTrustOptions().addCertValue(Buffer.buffer(resource(trustPemFile)))));
    try {
      return block(
          new OnEventLoop(h.vertx)
              .call(
                  () ->
                      client
                          .request(
                              new RequestOptions()
                                  .setMethod(HttpMethod.GET)
                                  .setServer(
                                      SocketAddress.inetSocketAddress(
                                          h.dataPlane.tlsPort(), "127.0.0.1"))
                                  .setHost(host)
                                  .setPort(443)
                                  .setURI("/track/tls"))
                          .compose(req -> req.send())
                          .compose(
                              resp -> {
                                X509Certificate cert;
                                try {
                                  cert =
                                      (X509Certificate)
                                          resp.request().connection().peerCertificates().get(0);
                                } catch (Exception e) {
                                  return io.vertx.core.Future.failedFuture(e);
                                }
                                return resp.body()
                                    .map(
                                        b ->
                                            new Served(
                                                resp.statusCode(),
                                                resp.getHeader("x-replica"),
                                                cert));
                              })));
    } finally {
      client.close();
    }
  }

  @Test
  void tlsFromSecretIsServedAndRotatedLive() {
    h.client.resource(tlsSecret("a-tls", "a-example.crt", "a-example.key")).create();
    ReplicaPool secure = pool("secure", "a.example");
    secure.getSpec().tls = new Tls();
    secure.getSpec().tls.secretName = "a-tls";
    h.client.resource(secure).create();
    h.awaitReadyAndSynced("secure");

    // A failed handshake is also reported on a Vert.x thread: only this await's outcome counts.
    Served first =
        await()
            .atMost(Duration.ofSeconds(10))
            .ignoreExceptions()
            .dontCatchUncaughtExceptions()
            .until(() -> https("a.example", "a-example.crt"), s -> s.status() == 200);
    assertThat(first.replica()).isEqualTo("t1");
    assertThat(first.certificate().getSubjectX500Principal().getName()).contains("CN=a.example");

    // Rotate the Secret: the new certificate is served without a restart.
    h.client
        .resource(tlsSecret("a-tls", "a-example-rotated.crt", "a-example-rotated.key"))
        .update();
    // Until the new certificate is live, handshakes that trust only it fail: expected, ignored.
    await()
        .atMost(Duration.ofSeconds(20))
        .ignoreExceptions()
        .dontCatchUncaughtExceptions()
        .untilAsserted(
            () ->
                assertThat(
                        https("a.example", "a-example-rotated.crt").certificate().getSerialNumber())
                    .isNotEqualTo(first.certificate().getSerialNumber()));

    // The TLS key never shows in status.
    String statusYaml =
        io.fabric8.kubernetes.client.utils.Serialization.asYaml(h.pool("secure").get().getStatus());
    assertThat(statusYaml).doesNotContain("PRIVATE KEY");
  }

  @Test
  void missingSecretIsAConditionAndAnEventNotACrash() {
    ReplicaPool pool = pool("no-secret", "nosecret.example");
    pool.getSpec().tls = new Tls();
    pool.getSpec().tls.secretName = "does-not-exist";
    h.client.resource(pool).create();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("no-secret").get();
              assertThat(condition(p, "ConfigurationValid")).isEqualTo("False");
              Condition c =
                  p.getStatus().conditions.stream()
                      .filter(x -> x.getType().equals("ConfigurationValid"))
                      .findFirst()
                      .orElseThrow();
              assertThat(c.getMessage()).contains("TLS Secret does-not-exist not found");
              assertThat(h.client.v1().events().inNamespace(h.namespace).list().getItems())
                  .anySatisfy(
                      e -> {
                        assertThat(e.getReason()).isEqualTo("InvalidConfiguration");
                        assertThat(e.getType()).isEqualTo("Warning");
                      });
            });
  }

  @Test
  void refusedSnapshotShowsItsReasonAndTheRestKeepsServing() {
    h.client.resource(pool("fine", "fine.example")).create();
    h.awaitReadyAndSynced("fine");

    // A dedicated port the data plane keeps for itself (its admin port) cannot be applied.
    ReplicaPool clash = pool("clash", "clash.example");
    clash.getSpec().route.port = h.dataPlane.adminPort();
    h.client.resource(clash).create();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("clash").get();
              assertThat(condition(p, "DataPlaneSynced")).isEqualTo("False");
              Condition c =
                  p.getStatus().conditions.stream()
                      .filter(x -> x.getType().equals("DataPlaneSynced"))
                      .findFirst()
                      .orElseThrow();
              assertThat(c.getReason()).isEqualTo("Rejected");
              assertThat(c.getMessage()).contains(Integer.toString(h.dataPlane.adminPort()));
            });
    assertThat(h.get("fine.example", "/track/1").status()).isEqualTo(200);

    // Fixed, it applies.
    int free = ReplicaProcess.freePort("127.0.0.1");
    ReplicaPools.editSpec(
        h.pool("clash"),
        p -> {
          p.getSpec().route.port = free;
          return p;
        });
    h.awaitReadyAndSynced("clash");
  }
}
