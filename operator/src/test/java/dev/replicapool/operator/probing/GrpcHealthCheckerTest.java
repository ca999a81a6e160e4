package dev.replicapool.operator.probing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.wire.UpstreamTlsMaterial;
import dev.replicapool.operator.probing.ProbeSpec.Transport;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.vertx.core.Vertx;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The GRPC checker against real grpc-java servers (HealthStatusManager), h2c and TLS. */
class GrpcHealthCheckerTest {
  static Vertx vertx;
  static Checks checks;
  static GrpcHealthChecker checker;
  @TempDir static Path dir;
  static TestCertificates certs;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    checks = new Checks(vertx);
    checker = new GrpcHealthChecker(checks.clients, "test");
    certs = new TestCertificates(dir);
  }

  @AfterAll
  static void stop() throws Exception {
    checks.close();
    vertx.close().await();
  }

  @Test
  void servingPassesAndNotServingFails() throws Exception {
    try (GrpcHealthServer server = GrpcHealthServer.plain()) {
      ProbeSpec spec = Checks.grpc(Transport.H2C, null, "");
      CheckOutcome ok = checks.run(checker, server.port(), spec);
      assertThat(ok.success()).as(ok.toString()).isTrue();
      assertThat(ok.connectionKept()).isTrue();

      server.serving(false);
      CheckOutcome down = checks.run(checker, server.port(), spec);
      assertThat(down.success()).isFalse();
      assertThat(down.error()).isEqualTo("gRPC NOT_SERVING");

      server.serving(true);
      assertThat(checks.run(checker, server.port(), spec).success()).isTrue();
    }
  }

  @Test
  void aLoadReportTrailerGivesTheUtilization() throws Exception {
    try (GrpcHealthServer server = GrpcHealthServer.plain()) {
      ProbeSpec spec = Checks.grpc(Transport.H2C, null, "");
      assertThat(checks.run(checker, server.port(), spec).utilization()).isNull();
      server.loadTrailer("TEXT cpu_utilization=0.97");
      CheckOutcome ok = checks.run(checker, server.port(), spec);
      assertThat(ok.success()).isTrue();
      assertThat(ok.utilization()).isEqualTo(0.97);
    }
  }

  @Test
  void aNamedServiceIsAskedForByName() throws Exception {
    try (GrpcHealthServer server = GrpcHealthServer.plain()) {
      server.set("tracking.v1.Tracking", ServingStatus.SERVING);
      server.set("billing.v1.Billing", ServingStatus.NOT_SERVING);
      assertThat(
              checks
                  .run(
                      checker,
                      server.port(),
                      Checks.grpc(Transport.H2C, null, "tracking.v1.Tracking"))
                  .success())
          .isTrue();
      CheckOutcome billing =
          checks.run(
              checker, server.port(), Checks.grpc(Transport.H2C, null, "billing.v1.Billing"));
      assertThat(billing.error()).isEqualTo("gRPC NOT_SERVING");
      // grpc-java answers an unknown service with NOT_FOUND.
      CheckOutcome unknown =
          checks.run(checker, server.port(), Checks.grpc(Transport.H2C, null, "nobody.v1.Nobody"));
      assertThat(unknown.success()).isFalse();
      assertThat(unknown.error()).startsWith("gRPC NOT_FOUND");
    }
  }

  @Test
  void unknownAndServiceUnknownStatusesFail() throws Exception {
    try (GrpcHealthServer server = GrpcHealthServer.plain()) {
      server.set("a", ServingStatus.UNKNOWN);
      server.set("b", ServingStatus.SERVICE_UNKNOWN);
      assertThat(checks.run(checker, server.port(), Checks.grpc(Transport.H2C, null, "a")).error())
          .isEqualTo("gRPC health UNKNOWN");
      assertThat(checks.run(checker, server.port(), Checks.grpc(Transport.H2C, null, "b")).error())
          .isEqualTo("gRPC SERVICE_UNKNOWN");
    }
  }

  @Test
  void aServerWithoutTheHealthServiceFails() throws Exception {
    try (GrpcHealthServer server = GrpcHealthServer.withoutHealthService()) {
      CheckOutcome o = checks.run(checker, server.port(), Checks.grpc(Transport.H2C, null, ""));
      assertThat(o.success()).isFalse();
      assertThat(o.error()).startsWith("gRPC UNIMPLEMENTED");
    }
  }

  @Test
  void aNonGrpcServerFails() throws Exception {
    try (TestServer http = new TestServer(vertx)) {
      CheckOutcome o = checks.run(checker, http.port(), Checks.grpc(Transport.H2C, null, ""));
      assertThat(o.success()).isFalse();
      assertThat(o.error()).contains("not a gRPC response");
    }
  }

  @Test
  void refusedConnectionFails() throws Exception {
    int port;
    try (GrpcHealthServer server = GrpcHealthServer.plain()) {
      port = server.port();
    }
    CheckOutcome o = checks.run(checker, port, Checks.grpc(Transport.H2C, null, ""));
    assertThat(o.success()).isFalse();
    assertThat(o.statusCode()).isEqualTo(-1);
  }

  @Test
  void tlsWithTheRightCaAndNamePasses() throws Exception {
    try (GrpcHealthServer server = GrpcHealthServer.tls(certs, false)) {
      UpstreamTlsMaterial tls =
          new UpstreamTlsMaterial(certs.pem(certs.caCert), "tracking.internal", null, null, false);
      CheckOutcome o = checks.run(checker, server.port(), Checks.grpc(Transport.TLS_H2, tls, ""));
      assertThat(o.success()).as(o.toString()).isTrue();

      UpstreamTlsMaterial wrongCa =
          new UpstreamTlsMaterial(
              certs.pem(certs.otherCaCert), "tracking.internal", null, null, false);
      assertThat(
              checks
                  .run(checker, server.port(), Checks.grpc(Transport.TLS_H2, wrongCa, ""))
                  .success())
          .isFalse();
      UpstreamTlsMaterial wrongName =
          new UpstreamTlsMaterial(certs.pem(certs.caCert), "billing.internal", null, null, false);
      assertThat(
              checks
                  .run(checker, server.port(), Checks.grpc(Transport.TLS_H2, wrongName, ""))
                  .success())
          .isFalse();
      UpstreamTlsMaterial skip = new UpstreamTlsMaterial(null, null, null, null, true);
      assertThat(
              checks.run(checker, server.port(), Checks.grpc(Transport.TLS_H2, skip, "")).success())
          .isTrue();
    }
  }

  @Test
  void mutualTlsNeedsTheClientCertificate() throws Exception {
    try (GrpcHealthServer server = GrpcHealthServer.tls(certs, true)) {
      String ca = certs.pem(certs.caCert);
      UpstreamTlsMaterial withCert =
          new UpstreamTlsMaterial(
              ca,
              "tracking.internal",
              certs.pem(certs.clientCert),
              certs.pem(certs.clientKey),
              false);
      CheckOutcome o =
          checks.run(checker, server.port(), Checks.grpc(Transport.TLS_H2, withCert, ""));
      assertThat(o.success()).as(o.toString()).isTrue();
      UpstreamTlsMaterial without =
          new UpstreamTlsMaterial(ca, "tracking.internal", null, null, false);
      assertThat(
              checks
                  .run(checker, server.port(), Checks.grpc(Transport.TLS_H2, without, ""))
                  .success())
          .isFalse();
    }
  }

  /** Through the prober: a hanging Check times out, and a flip is seen on the next probes. */
  @Test
  void theProberTimesOutAHangingCheckAndFollowsFlips() throws Exception {
    List<StreamObserver<HealthCheckResponse>> hung = new CopyOnWriteArrayList<>();
    Server hanging =
        NettyServerBuilder.forAddress(
                new InetSocketAddress("127.0.0.1", 0), InsecureServerCredentials.create())
            .addService(
                new HealthGrpc.HealthImplBase() {
                  @Override
                  public void check(
                      HealthCheckRequest request, StreamObserver<HealthCheckResponse> response) {
                    hung.add(response); // never answered
                  }
                })
            .build()
            .start();
    List<ProbeResult> results = new CopyOnWriteArrayList<>();
    try (GrpcHealthServer server = GrpcHealthServer.plain();
        Prober prober = new Prober(vertx, results::add)) {
      ProbeSpec spec = Checks.grpc(Transport.H2C, null, "");
      MemberKey flipping = new MemberKey("ns/grpc", "127.0.0.1:" + server.port());
      MemberKey stuck = new MemberKey("ns/grpc", "127.0.0.1:" + hanging.getPort());
      prober.track(flipping, "127.0.0.1", server.port(), spec, 100, 80);
      prober.track(stuck, "127.0.0.1", hanging.getPort(), spec, 100, 80);

      await().atMost(Duration.ofSeconds(10)).until(() -> last(results, flipping, true));
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(results)
                      .anySatisfy(
                          r -> {
                            assertThat(r.key()).isEqualTo(stuck);
                            assertThat(r.error()).isEqualTo("timeout after 80 ms");
                          }));
      server.serving(false);
      await().atMost(Duration.ofSeconds(10)).until(() -> last(results, flipping, false));
      server.serving(true);
      await().atMost(Duration.ofSeconds(10)).until(() -> last(results, flipping, true));
      assertThat(results).noneMatch(r -> r.key().equals(stuck) && r.success());
    } finally {
      hanging.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static boolean last(List<ProbeResult> results, MemberKey key, boolean success) {
    ProbeResult last = null;
    for (ProbeResult r : results) {
      if (r.key().equals(key)) {
        last = r;
      }
    }
    return last != null && last.success() == success;
  }
}
