package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.replicapool.dataplane.accesslog.AccessLog;
import dev.replicapool.dataplane.accesslog.AccessLogConfig;
import dev.replicapool.dataplane.accesslog.AccessLogFormat;
import dev.replicapool.dataplane.tracing.TracingConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataPlaneArgsTest {
  @TempDir Path dir;

  @Test
  void flagsAndEnvironmentWithDefaults() throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "  s3cret\n");
    DataPlane.Config c =
        DataPlaneArgs.parse(
            new String[] {
              "--control-plane",
              "operator.replicapool-system:18000",
              "--token-file",
              token.toString()
            },
            Map.of("NODE_NAME", "node-7", "REPLICAPOOL_LISTEN", "127.0.0.1:9090"));
    assertThat(c.controlPlane().host()).isEqualTo("operator.replicapool-system");
    assertThat(c.controlPlane().port()).isEqualTo(18000);
    assertThat(c.controlPlane().token()).isEqualTo("s3cret");
    assertThat(c.controlPlane().node()).isEqualTo("node-7");
    assertThat(c.controlPlane().trustPem()).isNull();
    assertThat(c.proxy().listenHost()).isEqualTo("127.0.0.1");
    assertThat(c.proxy().trafficPort()).isEqualTo(9090);
    assertThat(c.proxy().tlsPort()).isEqualTo(8443);
    assertThat(c.adminPort()).isEqualTo(9901);
    assertThat(c.controlPlane().toString()).doesNotContain("s3cret");

    DataPlane.Config limits =
        DataPlaneArgs.parse(
            new String[] {
              "--control-plane=cp:1",
              "--token-file=" + token,
              "--node=n",
              "--tls-listen=off",
              "--max-body-bytes=100",
              "--max-header-bytes=4096",
              "--drain-seconds=3",
              "--warm-up-seconds=3"
            },
            Map.of());
    assertThat(limits.proxy().tlsPort()).isEqualTo(-1);
    assertThat(limits.proxy().maxBodyBytes()).isEqualTo(100);
    assertThat(limits.proxy().maxHeaderSize()).isEqualTo(4096);
    assertThat(limits.proxy().drainMillis()).isEqualTo(3000);
    assertThat(limits.proxy().warmUpMillis()).isEqualTo(3000);
    assertThat(c.proxy().warmUpMillis()).as("no warm-up unless asked").isZero();
    String[] tooLong = {
      "--control-plane=cp:1", "--token-file=" + token, "--node=n", "--warm-up-seconds=61"
    };
    assertThatThrownBy(() -> DataPlaneArgs.parse(tooLong, Map.of()))
        .isInstanceOf(DataPlaneArgs.UsageException.class)
        .hasMessageContaining("--warm-up-seconds");
  }

  @Test
  void groupIsNamedByFlagOrEnvironmentAndMustBeADnsLabel() throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "t");
    String[] base = {"--control-plane=cp:1", "--token-file=" + token, "--node=n"};
    assertThat(DataPlaneArgs.parse(base, Map.of()).controlPlane().group())
        .as("no flag: the operator decides (certificate group, else default)")
        .isNull();
    String[] edge = {"--control-plane=cp:1", "--token-file=" + token, "--node=n", "--group=edge"};
    assertThat(DataPlaneArgs.parse(edge, Map.of()).controlPlane().group()).isEqualTo("edge");
    assertThat(
            DataPlaneArgs.parse(base, Map.of("REPLICAPOOL_GROUP", "internal"))
                .controlPlane()
                .group())
        .isEqualTo("internal");
    String[] bad = {"--control-plane=cp:1", "--token-file=" + token, "--node=n", "--group=Edge_1"};
    assertThatThrownBy(() -> DataPlaneArgs.parse(bad, Map.of()))
        .isInstanceOf(DataPlaneArgs.UsageException.class)
        .hasMessageContaining("--group")
        .hasMessageContaining("DNS label");
  }

  @Test
  void accessLogIsOffUnlessASinkIsNamed() throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "t");
    String[] base = {"--control-plane=cp:1", "--token-file=" + token, "--node=n"};
    AccessLogConfig off = DataPlaneArgs.parse(base, Map.of()).accessLog();
    assertThat(off.target()).isNull();
    assertThat(off.options().format()).isEqualTo(AccessLogFormat.JSON);
    assertThat(off.options().query()).isFalse();
    assertThat(off.options().allPools()).isFalse();
    assertThat(off.options().queueSize()).isEqualTo(8192);
    AccessLogConfig on =
        DataPlaneArgs.parse(
                base,
                Map.of(
                    "REPLICAPOOL_ACCESS_LOG", "/var/log/access.log",
                    "REPLICAPOOL_ACCESS_LOG_FORMAT", "text",
                    "REPLICAPOOL_ACCESS_LOG_POOLS", "all",
                    "REPLICAPOOL_ACCESS_LOG_QUERY", "on",
                    "REPLICAPOOL_ACCESS_LOG_QUEUE", "16"))
            .accessLog();
    assertThat(on.target()).isEqualTo("/var/log/access.log");
    assertThat(on.options()).isEqualTo(new AccessLog.Options(AccessLogFormat.TEXT, true, true, 16));
    String[] bad = {
      "--control-plane=cp:1", "--token-file=" + token, "--node=n", "--access-log-format=xml"
    };
    assertThatThrownBy(() -> DataPlaneArgs.parse(bad, Map.of()))
        .hasMessageContaining("--access-log-format");
    String[] zero = {
      "--control-plane=cp:1", "--token-file=" + token, "--node=n", "--access-log-queue=0"
    };
    assertThatThrownBy(() -> DataPlaneArgs.parse(zero, Map.of()))
        .hasMessageContaining("--access-log-queue");
  }

  @Test
  void tracingIsOffUnlessAReceiverIsNamed() throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "t");
    String[] base = {"--control-plane=cp:1", "--token-file=" + token, "--node=n"};
    TracingConfig off = DataPlaneArgs.parse(base, Map.of()).tracing();
    assertThat(off.enabled()).isFalse();
    TracingConfig on =
        DataPlaneArgs.parse(
                base,
                Map.of(
                    "REPLICAPOOL_OTLP_ENDPOINT", "http://collector:4318",
                    "REPLICAPOOL_TRACE_SAMPLING", "0.25"))
            .tracing();
    assertThat(on.tracesUrl()).isEqualTo("http://collector:4318/v1/traces");
    assertThat(on.sampling()).isEqualTo(0.25);
    assertThat(on.queue()).isEqualTo(TracingConfig.DEFAULT_QUEUE);
    assertThat(
            DataPlaneArgs.parse(base, Map.of("REPLICAPOOL_OTLP_ENDPOINT", "http://c:4318"))
                .tracing()
                .sampling())
        .as("new traces recorded by default")
        .isEqualTo(0.01);
    Map<String, String> refused =
        Map.of(
            "--trace-sampling=2", "sampling must be between 0 and 1",
            "--trace-sampling=often", "--trace-sampling takes a ratio",
            "--otlp-endpoint=grpc://collector:4317", "must be http:// or https://",
            "--trace-queue=0", "--trace-queue");
    for (var bad : refused.entrySet()) {
      String[] args = {"--control-plane=cp:1", "--token-file=" + token, "--node=n", bad.getKey()};
      assertThatThrownBy(() -> DataPlaneArgs.parse(args, Map.of()))
          .as(bad.getKey())
          .hasMessageContaining(bad.getValue());
    }
  }

  @Test
  void refusesWhatCannotWork() throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "t");
    Path empty = Files.writeString(dir.resolve("empty"), " \n");
    assertThatThrownBy(() -> DataPlaneArgs.parse(new String[] {}, Map.of()))
        .hasMessageContaining("--control-plane");
    assertThatThrownBy(
            () ->
                DataPlaneArgs.parse(
                    new String[] {"--control-plane", "cp:1"}, Map.of("NODE_NAME", "n")))
        .hasMessageContaining("--token-file");
    assertThatThrownBy(
            () ->
                DataPlaneArgs.parse(
                    new String[] {"--control-plane", "cp:1", "--token-file", empty.toString()},
                    Map.of("NODE_NAME", "n")))
        .hasMessageContaining("empty");
    assertThatThrownBy(
            () ->
                DataPlaneArgs.parse(
                    new String[] {"--control-plane", "cp:x", "--token-file", token.toString()},
                    Map.of("NODE_NAME", "n")))
        .hasMessageContaining("bad port");
    assertThatThrownBy(() -> DataPlaneArgs.parse(new String[] {"--frobnicate", "1"}, Map.of()))
        .hasMessageContaining("unknown flag --frobnicate");
  }

  static final String CERT = "-----BEGIN CERTIFICATE-----\nMIIBcert\n-----END CERTIFICATE-----\n";
  static final String KEY = "-----BEGIN PRIVATE KEY-----\nMIGHkey\n-----END PRIVATE KEY-----\n";

  @Test
  void clientCertificateForMutualTls() throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "s3cret");
    Path ca = Files.writeString(dir.resolve("ca.crt"), CERT);
    Path cert = Files.writeString(dir.resolve("tls.crt"), CERT.replace("cert", "client"));
    Path key = Files.writeString(dir.resolve("tls.key"), KEY);
    DataPlane.Config c =
        DataPlaneArgs.parse(
            new String[] {
              "--control-plane=cp:18000",
              "--token-file=" + token,
              "--node=n",
              "--control-plane-ca=" + ca,
              "--control-plane-cert",
              cert.toString(),
              "--control-plane-key",
              key.toString()
            },
            Map.of());
    assertThat(c.controlPlane().trustPem()).isEqualTo(CERT);
    assertThat(c.controlPlane().clientCertPem()).isEqualTo(CERT.replace("cert", "client"));
    assertThat(c.controlPlane().clientKeyPem()).isEqualTo(KEY);
    assertThat(c.controlPlane().mutualTls()).isTrue();
    assertThat(c.controlPlane().toString())
        .contains("tls=true", "mutualTls=true")
        .doesNotContain("BEGIN", "MIGH", "s3cret");

    // From the environment, like every flag.
    DataPlane.Config env =
        DataPlaneArgs.parse(
            new String[] {},
            Map.of(
                "REPLICAPOOL_CONTROL_PLANE", "cp:18000",
                "REPLICAPOOL_TOKEN_FILE", token.toString(),
                "NODE_NAME", "n",
                "REPLICAPOOL_CONTROL_PLANE_CA", ca.toString(),
                "REPLICAPOOL_CONTROL_PLANE_CERT", cert.toString(),
                "REPLICAPOOL_CONTROL_PLANE_KEY", key.toString()));
    assertThat(env.controlPlane().clientKeyPem()).isEqualTo(KEY);

    // Without the flags: TLS only, no client certificate.
    DataPlane.Config tlsOnly =
        DataPlaneArgs.parse(
            new String[] {
              "--control-plane=cp:18000",
              "--token-file=" + token,
              "--node=n",
              "--control-plane-ca=" + ca
            },
            Map.of());
    assertThat(tlsOnly.controlPlane().clientCertPem()).isNull();
    assertThat(tlsOnly.controlPlane().mutualTls()).isFalse();
  }

  @Test
  void refusesClientCertificateFlagsThatCannotWork() throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "s3cret");
    Path ca = Files.writeString(dir.resolve("ca.crt"), CERT);
    Path cert = Files.writeString(dir.resolve("tls.crt"), CERT);
    Path key = Files.writeString(dir.resolve("tls.key"), KEY);
    String[] base = {"--control-plane=cp:1", "--token-file=" + token, "--node=n"};

    assertThatThrownBy(
            () -> parse(base, "--control-plane-ca=" + ca, "--control-plane-cert=" + cert))
        .hasMessageContaining("--control-plane-cert and --control-plane-key go together");
    assertThatThrownBy(() -> parse(base, "--control-plane-ca=" + ca, "--control-plane-key=" + key))
        .hasMessageContaining("--control-plane-cert and --control-plane-key go together");
    assertThatThrownBy(
            () -> parse(base, "--control-plane-cert=" + cert, "--control-plane-key=" + key))
        .hasMessageContaining("needs TLS: give --control-plane-ca too");
    assertThatThrownBy(
            () ->
                parse(
                    base,
                    "--control-plane-ca=" + ca,
                    "--control-plane-cert=" + dir.resolve("missing.crt"),
                    "--control-plane-key=" + key))
        .hasMessageContaining("--control-plane-cert: cannot read");
    // Swapped files are caught here, not as a handshake failure later; the key is never shown.
    assertThatThrownBy(
            () ->
                parse(
                    base,
                    "--control-plane-ca=" + ca,
                    "--control-plane-cert=" + key,
                    "--control-plane-key=" + cert))
        .hasMessageContaining("--control-plane-cert: " + key + " holds no PEM certificate")
        .hasMessageNotContaining("MIGH");
    assertThatThrownBy(
            () ->
                parse(
                    base,
                    "--control-plane-ca=" + ca,
                    "--control-plane-cert=" + cert,
                    "--control-plane-key=" + cert))
        .hasMessageContaining("--control-plane-key: " + cert + " holds no PEM private key");
    assertThat(DataPlaneArgs.USAGE).contains("--control-plane-cert", "--control-plane-key");
  }

  static DataPlane.Config parse(String[] base, String... more) throws Exception {
    String[] args = java.util.Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, args, base.length, more.length);
    return DataPlaneArgs.parse(args, Map.of());
  }
}
