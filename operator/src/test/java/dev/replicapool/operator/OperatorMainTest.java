package dev.replicapool.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OperatorMainTest {
  static final String CERT = "-----BEGIN CERTIFICATE-----\nMIIBcert\n-----END CERTIFICATE-----\n";
  static final String KEY = "-----BEGIN PRIVATE KEY-----\nMIGHkey\n-----END PRIVATE KEY-----\n";
  static final String CA = "-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n";

  @TempDir Path dir;
  String token;
  String cert;
  String key;
  String ca;

  @BeforeEach
  void files() throws IOException {
    token = Files.writeString(dir.resolve("token"), " s3cret-token\n").toString();
    cert = Files.writeString(dir.resolve("tls.crt"), CERT).toString();
    key = Files.writeString(dir.resolve("tls.key"), KEY).toString();
    ca = Files.writeString(dir.resolve("client-ca.crt"), CA).toString();
  }

  static OperatorConfig config(Map<String, String> env, String... args) {
    return OperatorMain.config(OperatorMain.parse(args, env));
  }

  static OperatorConfig config(String... args) {
    return config(Map.of(), args);
  }

  @Test
  void plainTlsAndMutualTls() {
    OperatorConfig plain = config("--token-file", token);
    assertThat(plain.token()).isEqualTo("s3cret-token");
    assertThat(plain.tlsCertPem()).isNull();
    assertThat(plain.clientCaPem()).isNull();
    assertThat(plain.toString()).contains("tls=false", "mutualTls=false");

    OperatorConfig tls = config("--token-file", token, "--tls-cert", cert, "--tls-key=" + key);
    assertThat(tls.tlsCertPem()).isEqualTo(CERT);
    assertThat(tls.tlsKeyPem()).isEqualTo(KEY);
    assertThat(tls.clientCaPem()).isNull();
    assertThat(tls.toString()).contains("tls=true", "mutualTls=false");

    OperatorConfig mtls =
        config(
            "--token-file",
            token,
            "--tls-cert",
            cert,
            "--tls-key",
            key,
            "--client-ca",
            ca,
            "--control-plane-port",
            "18000");
    assertThat(mtls.clientCaPem()).isEqualTo(CA);
    assertThat(mtls.controlPlanePort()).isEqualTo(18000);
    assertThat(mtls.toString())
        .contains("tls=true", "mutualTls=true")
        .doesNotContain("BEGIN", "PRIVATE", "MIIB", "MIGH", "s3cret");

    // The environment works like the flags (REPLICAPOOL_CLIENT_CA), as for every flag.
    OperatorConfig fromEnv =
        config(
            Map.of(
                "REPLICAPOOL_TOKEN_FILE", token,
                "REPLICAPOOL_TLS_CERT", cert,
                "REPLICAPOOL_TLS_KEY", key,
                "REPLICAPOOL_CLIENT_CA", ca));
    assertThat(fromEnv.clientCaPem()).isEqualTo(CA);
  }

  /** TLS flags that work, and {@code --client-ca} as given. */
  OperatorConfig configWithClientCa(String clientCa) {
    return config(
        "--token-file", token, "--tls-cert", cert, "--tls-key", key, "--client-ca", clientCa);
  }

  @Test
  void tracingIsOffUnlessAReceiverIsNamed() {
    assertThat(config("--token-file", token).otlpEndpoint()).isNull();
    OperatorConfig traced =
        config("--token-file", token, "--otlp-endpoint", "http://collector:4318");
    assertThat(traced.otlpEndpoint()).hasToString("http://collector:4318");
    assertThat(traced.traceSampling()).isEqualTo(1.0);
    assertThat(
            config("--token-file", token, "--otlp-endpoint=http://c:4318", "--trace-sampling=0.1")
                .traceSampling())
        .isEqualTo(0.1);
    assertThatThrownBy(() -> config("--token-file", token, "--otlp-endpoint", "grpc://c:4317"))
        .hasMessageContaining("--otlp-endpoint must be an http:// or https:// URL");
    assertThatThrownBy(
            () -> config("--token-file", token, "--otlp-endpoint=http://c", "--trace-sampling=2"))
        .hasMessageContaining("--trace-sampling must be between 0 and 1");
  }

  @Test
  void groupTokensComeFromADirectoryLaidOutLikeAMountedSecret() throws IOException {
    // A Secret volume: each key a symlink into ..data, which links to a timestamped directory.
    Path mount = Files.createDirectory(dir.resolve("group-tokens"));
    Path version = Files.createDirectory(mount.resolve("..2026_12_01_10_00_00.1"));
    Files.writeString(version.resolve("edge"), "edge-token\n");
    Files.writeString(version.resolve("internal"), " internal-token");
    Files.createSymbolicLink(mount.resolve("..data"), version.getFileName());
    Files.createSymbolicLink(mount.resolve("edge"), Path.of("..data/edge"));
    Files.createSymbolicLink(mount.resolve("internal"), Path.of("..data/internal"));

    OperatorConfig c = config("--token-file", token, "--group-tokens-dir", mount.toString());
    assertThat(c.groupTokens())
        .isEqualTo(Map.of("edge", "edge-token", "internal", "internal-token"));
    assertThat(c.toString()).contains("groupTokens=[edge, internal]").doesNotContain("edge-token");
    assertThat(
            config(Map.of("REPLICAPOOL_GROUP_TOKENS_DIR", mount.toString()), "--token-file", token)
                .groupTokens())
        .containsOnlyKeys("edge", "internal");
    assertThat(config("--token-file", token).groupTokens()).isEmpty();
  }

  @Test
  void refusesGroupTokensThatWouldServeMoreThanOneGroup() throws IOException {
    Path bad = Files.createDirectory(dir.resolve("bad-name"));
    Files.writeString(bad.resolve("Edge_1"), "t1");
    assertThatThrownBy(() -> config("--token-file", token, "--group-tokens-dir", bad.toString()))
        .hasMessageContaining("is not named by a data-plane group");

    Path shared = Files.createDirectory(dir.resolve("shared"));
    Files.writeString(shared.resolve("edge"), "s3cret-token");
    assertThatThrownBy(() -> config("--token-file", token, "--group-tokens-dir", shared.toString()))
        .hasMessageContaining("each group needs its own");

    Path twice = Files.createDirectory(dir.resolve("twice"));
    Files.writeString(twice.resolve("a"), "same");
    Files.writeString(twice.resolve("b"), "same");
    assertThatThrownBy(() -> config("--token-file", token, "--group-tokens-dir", twice.toString()))
        .hasMessageContaining("each group needs its own");

    Path empty = Files.createDirectory(dir.resolve("empty"));
    assertThatThrownBy(() -> config("--token-file", token, "--group-tokens-dir", empty.toString()))
        .hasMessageContaining("holds no token");
    Path blank = Files.createDirectory(dir.resolve("blank"));
    Files.writeString(blank.resolve("edge"), " \n");
    assertThatThrownBy(() -> config("--token-file", token, "--group-tokens-dir", blank.toString()))
        .hasMessageContaining("is empty");
    assertThatThrownBy(
            () ->
                config("--token-file", token, "--group-tokens-dir", dir.resolve("nope").toString()))
        .hasMessageContaining("cannot read");
  }

  @Test
  void refusesTlsFlagsThatCannotWork() throws IOException {
    assertThatThrownBy(() -> config("--token-file", token, "--client-ca", ca))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--client-ca")
        .hasMessageContaining("--tls-cert and --tls-key");
    assertThatThrownBy(() -> config("--token-file", token, "--tls-cert", cert, "--client-ca", ca))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--tls-cert and --tls-key go together");
    assertThatThrownBy(() -> config("--token-file", token, "--tls-key", key))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--tls-cert and --tls-key go together");
    String missing = dir.resolve("nope.crt").toString();
    assertThatThrownBy(() -> configWithClientCa(missing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--client-ca: cannot read " + missing);
    // A key given as the CA (flags swapped) is caught before the port opens.
    assertThatThrownBy(() -> configWithClientCa(key))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--client-ca: " + key + " holds no PEM certificate")
        .hasMessageNotContaining("MIGH");
    assertThatThrownBy(() -> config("--token-file", token, "--tls-cert", cert, "--tls-key", cert))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holds no PEM private key");
    assertThatThrownBy(() -> config("--client-ca", ca))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--token-file");
    String empty = Files.writeString(dir.resolve("empty"), "\n").toString();
    assertThatThrownBy(() -> config("--token-file", empty))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is empty");
    assertThatThrownBy(() -> OperatorMain.parse(new String[] {"--client-cert", ca}, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown flag --client-cert");
    assertThat(OperatorMain.USAGE).contains("--client-ca FILE");
  }

  @Test
  void helpAsksForTheUsageAndALaterFlagWins() {
    assertThat(OperatorMain.readCommandLine(new String[] {"--help"}, Map.of()).help()).isTrue();
    assertThat(
            OperatorMain.readCommandLine(new String[] {"--admin-port", "9", "-h"}, Map.of()).help())
        .isTrue();
    assertThat(OperatorMain.readCommandLine(new String[] {"--admin-port", "9"}, Map.of()).help())
        .isFalse();
    assertThat(OperatorMain.parse(new String[] {"--admin-port", "1", "--admin-port=2"}, Map.of()))
        .as("the Deployment's args, then an override")
        .containsEntry("admin-port", "2");
  }

  @Test
  void theConfigItselfRefusesAClientCaWithoutTls() {
    OperatorConfig plain = OperatorConfig.local("t");
    assertThatThrownBy(() -> plain.withClientCa(CA))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs TLS");
  }
}
