package dev.replicapool.operator.probing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.HealthCheckType;
import dev.replicapool.api.wire.UpstreamTlsMaterial;
import dev.replicapool.operator.probing.ProbeSpec.StatusRange;
import dev.replicapool.operator.probing.ProbeSpec.Transport;
import io.vertx.core.Vertx;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP checker against real Vert.x servers: expected statuses, Host/:authority, HTTP/2 with
 * prior knowledge, TLS by ALPN with the pool's CA, SNI name and client certificate.
 */
class HttpHealthCheckerTest {
  /** What a server saw of one request. */
  record Seen(HttpVersion version, String authority, String path, String sni) {}

  static Vertx vertx;
  static Checks checks;
  static HttpHealthChecker checker;
  @TempDir static Path dir;
  static TestCertificates certs;
  static final List<Seen> seen = new CopyOnWriteArrayList<>();
  static HttpServer plain;
  static HttpServer tls;
  static HttpServer mtls;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    checks = new Checks(vertx);
    checker = new HttpHealthChecker(checks.clients, "test");
    certs = new TestCertificates(dir);
    plain = vertx.createHttpServer().requestHandler(HttpHealthCheckerTest::answer);
    plain.listen(0, "127.0.0.1").await();
    PemKeyCertOptions key =
        new PemKeyCertOptions()
            .setCertPath(certs.serverCert.toString())
            .setKeyPath(certs.serverKey.toString());
    HttpServerOptions tlsOptions =
        new HttpServerOptions().setSsl(true).setSni(true).setUseAlpn(true).setKeyCertOptions(key);
    tls = vertx.createHttpServer(tlsOptions).requestHandler(HttpHealthCheckerTest::answer);
    tls.listen(0, "127.0.0.1").await();
    mtls =
        vertx
            .createHttpServer(
                new HttpServerOptions(tlsOptions)
                    .setClientAuth(ClientAuth.REQUIRED)
                    .setTrustOptions(new PemTrustOptions().addCertPath(certs.caCert.toString())))
            .requestHandler(HttpHealthCheckerTest::answer);
    mtls.listen(0, "127.0.0.1").await();
  }

  /** /status/N answers N. */
  static void answer(HttpServerRequest r) {
    seen.add(
        new Seen(
            r.version(),
            r.authority() == null ? null : r.authority().toString(),
            r.path(),
            r.connection().indicatedServerName()));
    int status = r.path().startsWith("/status/") ? Integer.parseInt(r.path().substring(8)) : 200;
    String load = r.getParam("load");
    if (load != null) {
      r.response().putHeader("endpoint-load-metrics", load);
    }
    r.response().setStatusCode(status).end("body");
  }

  @AfterAll
  static void stop() throws Exception {
    checks.close();
    vertx.close().await();
  }

  static ProbeSpec spec(
      String path,
      Transport transport,
      UpstreamTlsMaterial tls,
      String host,
      List<StatusRange> statuses) {
    return new ProbeSpec(HealthCheckType.HTTP, path, null, host, "", statuses, transport, tls);
  }

  Seen lastSeen() {
    return seen.get(seen.size() - 1);
  }

  @Test
  void anAnswersLoadReportGivesTheUtilizationAsTheDataPlaneReadsIt() throws Exception {
    int port = plain.actualPort();
    CheckOutcome cpu =
        checks.run(
            checker,
            port,
            spec("/ok?load=TEXT%20cpu_utilization%3D0.97", Transport.H1, null, null, null));
    assertThat(cpu.success()).isTrue();
    assertThat(cpu.utilization()).isEqualTo(0.97);
    // application_utilization wins when above 0; a failed answer still reports.
    CheckOutcome app =
        checks.run(
            checker,
            port,
            spec(
                "/status/503?load=TEXT%20cpu_utilization%3D0.2,application_utilization%3D0.5",
                Transport.H1, null, null, null));
    assertThat(app.success()).isFalse();
    assertThat(app.utilization()).isEqualTo(0.5);
    assertThat(checks.run(checker, port, spec("/ok", Transport.H1, null, null, null)).utilization())
        .isNull();
    assertThat(
            checks
                .run(checker, port, spec("/ok?load=garbage", Transport.H1, null, null, null))
                .utilization())
        .isNull();
  }

  @Test
  void theBinaryHeaderAndTrailersAreReadToo() {
    // OrcaLoadReport{cpu_utilization (field 1, double) = 0.75}, base64.
    byte[] proto = new byte[9];
    proto[0] = 0x09;
    java.nio.ByteBuffer.wrap(proto, 1, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putDouble(0.75);
    String bin = java.util.Base64.getEncoder().encodeToString(proto);
    io.vertx.core.MultiMap trailers =
        io.vertx.core.MultiMap.caseInsensitiveMultiMap().add("endpoint-load-metrics-bin", bin);
    io.vertx.core.MultiMap headers =
        io.vertx.core.MultiMap.caseInsensitiveMultiMap()
            .add("endpoint-load-metrics", "TEXT cpu_utilization=0.1");
    assertThat(HttpMemberChecks.utilization(trailers, headers)).isEqualTo(0.75);
    assertThat(
            HttpMemberChecks.utilization(io.vertx.core.MultiMap.caseInsensitiveMultiMap(), headers))
        .isEqualTo(0.1);
  }

  @Test
  void expectedStatusesDecide() throws Exception {
    int port = plain.actualPort();
    List<StatusRange> redirectsToo =
        List.of(StatusRange.parse("200-399"), StatusRange.parse("418"));
    assertThat(
            checks
                .run(checker, port, spec("/status/302", Transport.H1, null, null, redirectsToo))
                .success())
        .isTrue();
    assertThat(
            checks
                .run(checker, port, spec("/status/418", Transport.H1, null, null, redirectsToo))
                .success())
        .isTrue();
    CheckOutcome notFound =
        checks.run(checker, port, spec("/status/404", Transport.H1, null, null, redirectsToo));
    assertThat(notFound.success()).isFalse();
    assertThat(notFound.error()).isEqualTo("HTTP 404");
    assertThat(notFound.cause()).isEqualTo(ProbeCause.HTTP_STATUS);
    assertThat(notFound.statusCode()).isEqualTo(404);
    // The default is any 2xx.
    assertThat(
            checks
                .run(checker, port, spec("/status/302", Transport.H1, null, null, null))
                .success())
        .isFalse();
    assertThat(
            checks
                .run(checker, port, spec("/status/204", Transport.H1, null, null, null))
                .success())
        .isTrue();
  }

  @Test
  void hostIsSentAsHostHeaderAndAsAuthority() throws Exception {
    int port = plain.actualPort();
    assertThat(
            checks
                .run(checker, port, spec("/h1", Transport.H1, null, "tracking.example", null))
                .success())
        .isTrue();
    assertThat(lastSeen().version()).isEqualTo(HttpVersion.HTTP_1_1);
    assertThat(lastSeen().authority()).isEqualTo("tracking.example");
    assertThat(checks.run(checker, port, spec("/h1", Transport.H1, null, null, null)).success())
        .isTrue();
    assertThat(lastSeen().authority()).isEqualTo("127.0.0.1:" + port);
  }

  @Test
  void h2cPoolsAreProbedWithHttp2PriorKnowledge() throws Exception {
    int port = plain.actualPort();
    CheckOutcome o =
        checks.run(checker, port, spec("/h2c", Transport.H2C, null, "tracking.example:8080", null));
    assertThat(o.success()).as(o.toString()).isTrue();
    assertThat(lastSeen().path()).isEqualTo("/h2c");
    assertThat(lastSeen().version()).isEqualTo(HttpVersion.HTTP_2);
    assertThat(lastSeen().authority()).isEqualTo("tracking.example:8080");
  }

  @Test
  void tlsVerifiesTheCaAndTheServerNameAndSendsItAsSni() throws Exception {
    int port = tls.actualPort();
    String ca = certs.pem(certs.caCert);
    UpstreamTlsMaterial good = new UpstreamTlsMaterial(ca, "tracking.internal", null, null, false);
    CheckOutcome o = checks.run(checker, port, spec("/tls", Transport.TLS_ALPN, good, null, null));
    assertThat(o.success()).as(o.toString()).isTrue();
    assertThat(lastSeen().version()).isEqualTo(HttpVersion.HTTP_2);
    assertThat(lastSeen().sni()).isEqualTo("tracking.internal");

    // Without a server name the member's address is verified: the certificate names 127.0.0.1.
    UpstreamTlsMaterial byAddress = new UpstreamTlsMaterial(ca, null, null, null, false);
    assertThat(
            checks
                .run(checker, port, spec("/tls", Transport.TLS_H1, byAddress, null, null))
                .success())
        .isTrue();
    assertThat(lastSeen().version()).isEqualTo(HttpVersion.HTTP_1_1);

    UpstreamTlsMaterial wrongName =
        new UpstreamTlsMaterial(ca, "billing.internal", null, null, false);
    CheckOutcome wrongNameOutcome =
        checks.run(checker, port, spec("/tls", Transport.TLS_ALPN, wrongName, null, null));
    assertThat(wrongNameOutcome.success()).isFalse();
    // The cause as the member's status and the probe metric show it, from the real handshake.
    assertThat(wrongNameOutcome.error()).isEqualTo("TLS: certificate for another name");
    assertThat(wrongNameOutcome.cause()).isEqualTo(ProbeCause.TLS_NAME);
    UpstreamTlsMaterial wrongCa =
        new UpstreamTlsMaterial(
            certs.pem(certs.otherCaCert), "tracking.internal", null, null, false);
    CheckOutcome wrongCaOutcome =
        checks.run(checker, port, spec("/tls", Transport.TLS_ALPN, wrongCa, null, null));
    assertThat(wrongCaOutcome.success()).isFalse();
    // The cause as the member's status and the probe metric show it, from the real handshake.
    assertThat(wrongCaOutcome.error()).isEqualTo("TLS: untrusted certificate");
    assertThat(wrongCaOutcome.cause()).isEqualTo(ProbeCause.TLS_UNTRUSTED);
    UpstreamTlsMaterial defaultRoots =
        new UpstreamTlsMaterial(null, "tracking.internal", null, null, false);
    CheckOutcome defaultRootsOutcome =
        checks.run(checker, port, spec("/tls", Transport.TLS_ALPN, defaultRoots, null, null));
    assertThat(defaultRootsOutcome.success()).isFalse();
    // The cause as the member's status and the probe metric show it, from the real handshake.
    assertThat(defaultRootsOutcome.error()).isEqualTo("TLS: untrusted certificate");
    assertThat(defaultRootsOutcome.cause()).isEqualTo(ProbeCause.TLS_UNTRUSTED);
    UpstreamTlsMaterial skip = new UpstreamTlsMaterial(null, "billing.internal", null, null, true);
    assertThat(
            checks.run(checker, port, spec("/tls", Transport.TLS_ALPN, skip, null, null)).success())
        .isTrue();
  }

  @Test
  void mutualTlsPresentsTheClientCertificate() throws Exception {
    int port = mtls.actualPort();
    String ca = certs.pem(certs.caCert);
    UpstreamTlsMaterial withCert =
        new UpstreamTlsMaterial(
            ca,
            "tracking.internal",
            certs.pem(certs.clientCert),
            certs.pem(certs.clientKey),
            false);
    CheckOutcome o =
        checks.run(checker, port, spec("/mtls", Transport.TLS_ALPN, withCert, null, null));
    assertThat(o.success()).as(o.toString()).isTrue();
    UpstreamTlsMaterial without =
        new UpstreamTlsMaterial(ca, "tracking.internal", null, null, false);
    assertThat(
            checks
                .run(checker, port, spec("/mtls", Transport.TLS_ALPN, without, null, null))
                .success())
        .isFalse();
  }

  /** Through the prober: healthCheck.port is probed instead of the member's traffic port. */
  @Test
  void theManagementPortIsProbedInsteadOfTheTrafficPort() throws Exception {
    List<ProbeResult> results = new CopyOnWriteArrayList<>();
    // On fake time: an 80 ms timeout must not fail every probe on a loaded machine.
    FakeTimeProber onFakeTime = new FakeTimeProber(vertx, results::add, Prober.Options.defaults());
    try (Prober prober = onFakeTime.prober) {
      int closedTrafficPort = ReplicaPortHolder.unusedPort();
      ProbeSpec spec =
          new ProbeSpec(
              HealthCheckType.HTTP,
              "/management",
              plain.actualPort(),
              null,
              "",
              null,
              Transport.H1,
              null);
      MemberKey key = new MemberKey("ns/p", "127.0.0.1:" + closedTrafficPort);
      prober.track(key, "127.0.0.1", closedTrafficPort, spec, 100, 80);
      onFakeTime.advanceUntil(() -> results.stream().anyMatch(ProbeResult::success));
      assertThat(seen).anyMatch(s -> s.path().equals("/management"));
    }
  }
}
