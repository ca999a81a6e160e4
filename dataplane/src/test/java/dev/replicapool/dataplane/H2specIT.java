package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 conformance of the client side with h2spec (built from its Go module by
 * scripts/provision-h2spec.sh): prior knowledge on the plain port, h2 by ALPN on the TLS port.
 * Every test passes; h2spec waits 5 s for each answer, so that a loaded machine does not fail one.
 */
class H2specIT extends DataPlaneTestBase {
  static final Path H2SPEC = Path.of(System.getProperty("user.home"), ".local", "bin", "h2spec");

  static final int KNOWN_FAILURES = 0;

  @Test
  void h2specPassesOnThePlainPort() throws Exception {
    TestMember m = member("m1");
    startDataPlane();
    publish(SnapshotBuilder.pool("shop/h2").hosts("localhost").members(m.snapshot(1)));
    h2spec("h2spec.txt", "h2c, prior knowledge", dp.trafficPort());
  }

  @Test
  void h2specPassesOnTheTlsPort() throws Exception {
    TestMember m = member("m1");
    startDataPlane(settings().withListen("127.0.0.1", 0, 0));
    publish(
        SnapshotBuilder.pool("shop/h2")
            .hosts("localhost")
            .tls(TlsIT.material("a-example"))
            .members(m.snapshot(1)));
    h2spec("h2spec-tls.txt", "h2 by ALPN", dp.tlsPort(), "-t", "-k");
  }

  private void h2spec(String report, String what, int port, String... extra) throws Exception {
    assertThat(H2SPEC).as("h2spec: run scripts/provision-h2spec.sh").isExecutable();
    List<String> cmd =
        new ArrayList<>(
            List.of(H2SPEC.toString(), "-h", "localhost", "-p", String.valueOf(port), "-o", "5"));
    cmd.addAll(List.of(extra));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    assertThat(p.waitFor(300, TimeUnit.SECONDS)).as("h2spec finished").isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    Files.writeString(Path.of("target", report), out);
    Matcher summary =
        Pattern.compile("(\\d+) tests, (\\d+) passed, (\\d+) skipped, (\\d+) failed").matcher(out);
    assertThat(summary.find()).as("h2spec summary in:%n%s", out).isTrue();
    System.out.println("FIGURE h2spec (" + what + "): " + summary.group());
    assertThat(Integer.parseInt(summary.group(1))).as("h2spec tests run").isEqualTo(145);
    assertThat(Integer.parseInt(summary.group(4)))
        .as("failed h2spec tests:%n%s", failures(out))
        .isLessThanOrEqualTo(KNOWN_FAILURES);
  }

  private static String failures(String out) {
    int i = out.indexOf("Failures:");
    return i < 0 ? out : out.substring(i);
  }
}
