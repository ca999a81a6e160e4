package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.StackTraceElementProxy;
import ch.qos.logback.core.AppenderBase;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.Tls;
import dev.replicapool.api.wire.ControlPlaneProtocol;
import dev.replicapool.controlplane.ControlPlaneClient;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.operator.OperatorConfig;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.ReplicaProcess;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.net.PemTrustOptions;
import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A run that handles every secret the system has: the control-plane token (and a wrong one a rogue
 * client presents), the operator's control-plane TLS key, a pool's TLS key from a Secret, and a
 * mismatched key the data plane refuses. With the project's loggers at TRACE and the libraries' at
 * DEBUG, none of them may appear in the logs, the pools' status, the Events, the data plane's
 * /status or /metrics, or the operator's /metrics.
 */
class HostileSecretsIT {
  static FaultSystem sys;
  static ReplicaPoolOperator op;
  static DataPlane dp;
  static ReplicaProcess member;
  static final ConcurrentLinkedQueue<String> logs = new ConcurrentLinkedQueue<>();
  static final Map<String, Level> savedLevels = new LinkedHashMap<>();
  static AppenderBase<ILoggingEvent> appender;
  static final String WRONG_TOKEN = "wrong-" + java.util.UUID.randomUUID();

  static void captureLogs() {
    LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    appender =
        new AppenderBase<>() {
          @Override
          protected void append(ILoggingEvent e) {
            StringBuilder sb = new StringBuilder(e.getFormattedMessage());
            for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
              sb.append(" | ").append(t.getClassName()).append(": ").append(t.getMessage());
              for (StackTraceElementProxy s : t.getStackTraceElementProxyArray()) {
                sb.append(' ').append(s.getSTEAsString());
              }
            }
            if (e.getMDCPropertyMap() != null) {
              sb.append(" mdc=").append(e.getMDCPropertyMap());
            }
            logs.add(e.getLevel() + " " + e.getLoggerName() + " " + sb);
          }
        };
    appender.setContext(ctx);
    appender.start();
    ctx.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
    for (var e :
        Map.of(
                "dev.replicapool", Level.TRACE,
                "io.javaoperatorsdk", Level.DEBUG,
                "io.fabric8", Level.DEBUG,
                "io.vertx", Level.DEBUG,
                "io.netty", Level.DEBUG)
            .entrySet()) {
      Logger l = ctx.getLogger(e.getKey());
      savedLevels.put(e.getKey(), l.getLevel());
      l.setLevel(e.getValue());
    }
  }

  @BeforeAll
  static void start() {
    captureLogs();
    sys = new FaultSystem("hostile-secrets");
    String cpCert = FaultSystem.tlsResource("controlplane.crt");
    OperatorConfig config =
        new OperatorConfig(
            Set.of(sys.namespace),
            "127.0.0.1",
            0,
            sys.token,
            cpCert,
            FaultSystem.tlsResource("controlplane.key"),
            0,
            null);
    op = sys.startOperator(sys.client, config);
    dp =
        FaultSystem.block(
            DataPlane.start(
                sys.vertx,
                new DataPlane.Config(
                    ControlPlaneClient.Options.of(
                            "127.0.0.1", op.controlPlanePort(), sys.token, "dp-secrets")
                        .withTrustPem(cpCert)
                        .withBackoff(50, 500),
                    FaultSystem.proxySettings(),
                    "127.0.0.1",
                    0)));
    sys.closeLater(() -> FaultSystem.block(dp.stop()));
    member = sys.replica("m1");

    sys.createTlsSecret(
        "shop-tls",
        "kubernetes.io/tls",
        FaultSystem.tlsResource("a-example.crt"),
        FaultSystem.tlsResource("a-example.key"));
    sys.createTlsSecret(
        "mismatched-tls",
        "kubernetes.io/tls",
        FaultSystem.tlsResource("b-example.crt"),
        FaultSystem.tlsResource("a-example.key"));
    ReplicaPool secure = sys.pool("secure", List.of(member.address()));
    secure.getSpec().route.hosts = List.of("a.example");
    secure.getSpec().tls = new Tls();
    secure.getSpec().tls.secretName = "shop-tls";
    sys.create(secure);
    ReplicaPool broken = sys.pool("broken", List.of(member.address()));
    broken.getSpec().route.hosts = List.of("b.example");
    broken.getSpec().tls = new Tls();
    broken.getSpec().tls.secretName = "mismatched-tls";
    sys.create(broken);
  }

  @AfterAll
  static void stop() {
    LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
    savedLevels.forEach((name, level) -> ctx.getLogger(name).setLevel(level));
    ctx.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(appender);
    sys.close();
  }

  /** Strings that must never show: the tokens, and pieces of every private key and its base64. */
  static Map<String, String> secrets() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("control-plane token", sys.token);
    s.put("wrong token presented by a rogue client", WRONG_TOKEN);
    s.put("private-key marker", "PRIVATE KEY-----");
    for (String key : List.of("a-example.key", "controlplane.key")) {
      String[] lines = FaultSystem.tlsResource(key).split("\n");
      s.put(key + " first base64 line", lines[1]);
      s.put(key + " last base64 line", lines[lines.length - 2]);
      String b64 =
          Base64.getEncoder()
              .encodeToString(FaultSystem.tlsResource(key).getBytes(StandardCharsets.US_ASCII));
      s.put(key + " as Secret data", b64.substring(40, 100));
    }
    return s;
  }

  @Test
  void noSecretInLogsStatusEventsOrAdminEndpoints() throws Exception {
    sys.awaitReadyAndSynced("secure", Duration.ofSeconds(30));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              ReplicaPool b = sys.pool("broken").get();
              assertThat(FaultSystem.conditionStatus(b, "DataPlaneSynced")).isEqualTo("False");
              assertThat(FaultSystem.condition(b, "DataPlaneSynced").getMessage())
                  .contains("rejected")
                  .contains("tls");
              assertThat(sys.events("broken"))
                  .anySatisfy(e -> assertThat(e.getReason()).isEqualTo("DataPlaneRejected"));
            });
    // TLS really terminates with the Secret's key.
    assertThat(httpsGet(dp.tlsPort(), "a.example")).startsWith("HTTP/1.1 200");
    // A rogue client presents a wrong token; the operator refuses and must not log it.
    assertThat(rogueDial()).isEqualTo("refused with 401");

    Map<String, String> surfaces = new LinkedHashMap<>();
    surfaces.put("logs", String.join("\n", logs));
    Kubectl.Result pools = sys.kubectl.run("get", "rp", "-n", sys.namespace, "-o", "yaml");
    surfaces.put("pool status (kubectl get rp -o yaml)", pools.stdout());
    Kubectl.Result events = sys.kubectl.run("get", "events", "-n", sys.namespace, "-o", "yaml");
    surfaces.put("events", events.stdout());
    surfaces.put("data plane /status", sys.admin(dp, "/status").body());
    surfaces.put("data plane /metrics", sys.admin(dp, "/metrics").body());
    surfaces.put("operator /metrics", sys.httpGet(op.adminPort(), "127.0.0.1", "/metrics").body());
    assertThat(surfaces.get("logs")).as("logs were captured").contains("operator started");
    assertThat(surfaces.get("data plane /status")).contains("a.example");

    List<String> leaks = new ArrayList<>();
    for (var surface : surfaces.entrySet()) {
      for (var secret : secrets().entrySet()) {
        if (surface.getValue().contains(secret.getValue())) {
          leaks.add(secret.getKey() + " in " + surface.getKey());
        }
      }
    }
    System.out.printf(
        "FIGURE secrets: %d log lines (dev.replicapool at TRACE, libraries at DEBUG), %d bytes of"
            + " status, %d of events, %d of /status, %d of data-plane /metrics checked for %d"
            + " secret strings: %d leaks %s%n",
        logs.size(),
        surfaces.get("pool status (kubectl get rp -o yaml)").length(),
        surfaces.get("events").length(),
        surfaces.get("data plane /status").length(),
        surfaces.get("data plane /metrics").length(),
        secrets().size(),
        leaks.size(),
        leaks);
    assertThat(leaks).isEmpty();
  }

  /** How the operator answered a WebSocket handshake with a wrong token, in words. */
  static String rogueDial() {
    try {
      sys.call(
              () ->
                  sys.vertx
                      .createWebSocketClient(
                          new io.vertx.core.http.WebSocketClientOptions()
                              .setSsl(true)
                              .setTrustOptions(
                                  new PemTrustOptions()
                                      .addCertValue(
                                          io.vertx.core.buffer.Buffer.buffer(
                                              FaultSystem.tlsResource("controlplane.crt")))))
                      .connect(
                          new WebSocketConnectOptions()
                              .setHost("127.0.0.1")
                              .setPort(op.controlPlanePort())
                              .setURI(ControlPlaneProtocol.STREAM_PATH)
                              .addHeader("Authorization", "Bearer " + WRONG_TOKEN)))
          .close();
      return "accepted";
    } catch (RuntimeException e) {
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof io.vertx.core.http.UpgradeRejectedException r) {
          return "refused with " + r.getStatus();
        }
      }
      // Anything else (a reset, a TLS failure) is a failure: say what it was.
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      return "failed: " + trace;
    }
  }

  /** One HTTPS request with SNI, trusting only the pool's certificate. */
  static String httpsGet(int port, String host) throws Exception {
    KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    ks.load(null, null);
    ks.setCertificateEntry(
        "pool",
        CertificateFactory.getInstance("X.509")
            .generateCertificate(
                new ByteArrayInputStream(
                    FaultSystem.tlsResource("a-example.crt").getBytes(StandardCharsets.US_ASCII))));
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    try (java.net.Socket plain = new java.net.Socket("127.0.0.1", port);
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(plain, host, port, true)) {
      SSLParameters p = s.getSSLParameters();
      p.setServerNames(List.of(new SNIHostName(host)));
      p.setEndpointIdentificationAlgorithm("HTTPS");
      s.setSSLParameters(p);
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET /track/1 HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }
}
