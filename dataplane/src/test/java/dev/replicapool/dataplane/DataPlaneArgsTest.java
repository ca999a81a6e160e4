package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
              "--drain-seconds=3"
            },
            Map.of());
    assertThat(limits.proxy().tlsPort()).isEqualTo(-1);
    assertThat(limits.proxy().maxBodyBytes()).isEqualTo(100);
    assertThat(limits.proxy().maxHeaderSize()).isEqualTo(4096);
    assertThat(limits.proxy().drainMillis()).isEqualTo(3000);
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
}
