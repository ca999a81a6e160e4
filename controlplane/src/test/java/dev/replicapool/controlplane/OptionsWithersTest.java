package dev.replicapool.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.replicapool.api.wire.TlsMaterial;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each {@code with...} method changes what it names and nothing else, and still validates. */
class OptionsWithersTest {
  final ControlPlaneClient.Options client =
      ControlPlaneClient.Options.of("cp.example", 7443, "t0ken", "node-1");
  final ControlPlaneServer.Options server =
      new ControlPlaneServer.Options("0.0.0.0", 7443, "t0ken");

  @Test
  void clientWithersChangeOnlyTheirComponents() {
    assertThat(client.withGroup("edge"))
        .isEqualTo(
            new ControlPlaneClient.Options(
                "cp.example",
                7443,
                "t0ken",
                "node-1",
                "edge",
                null,
                null,
                null,
                100,
                5_000,
                0.2,
                10_000,
                5_000));
    assertThat(client.withTrustPem("CA").withClientCertificate("CERT", "KEY"))
        .isEqualTo(
            new ControlPlaneClient.Options(
                "cp.example",
                7443,
                "t0ken",
                "node-1",
                null,
                "CA",
                "CERT",
                "KEY",
                100,
                5_000,
                0.2,
                10_000,
                5_000));
    assertThat(client.withBackoff(20, 200).withPingInterval(1_000))
        .isEqualTo(
            new ControlPlaneClient.Options(
                "cp.example",
                7443,
                "t0ken",
                "node-1",
                null,
                null,
                null,
                null,
                20,
                200,
                0.2,
                1_000,
                5_000));
  }

  @Test
  void clientWithersStillValidate() {
    assertThatThrownBy(() -> client.withClientCertificate("CERT", "KEY"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs TLS");
    assertThatThrownBy(() -> client.withGroup("Not A Label"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void serverWithersChangeOnlyTheirComponents() {
    TlsMaterial tls = new TlsMaterial("CERT", "KEY");
    assertThat(server.withTls(tls).withClientCa("CA").withGroupTokens(Map.of("edge", "e")))
        .isEqualTo(
            new ControlPlaneServer.Options(
                "0.0.0.0", 7443, "t0ken", tls, "CA", 60_000, Map.of("edge", "e")));
  }

  @Test
  void serverWithersStillValidate() {
    assertThatThrownBy(() -> server.withClientCa("CA"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs TLS");
  }
}
