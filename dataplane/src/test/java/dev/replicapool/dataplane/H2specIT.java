package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 conformance of the client side with h2spec (built from its Go module by
 * scripts/provision-h2spec.sh), prior knowledge on the plain port. 132 of 145 pass today (the
 * failures are listed in docs/DATAPLANE.md: stream-state and flow-control errors that Netty's codec
 * answers late or with another code); the bound only moves down.
 */
class H2specIT extends DataPlaneTestBase {
  static final Path H2SPEC = Path.of(System.getProperty("user.home"), ".local", "bin", "h2spec");

  static final int KNOWN_FAILURES = 13;

  @Test
  void h2specPassesOnThePlainPort() throws Exception {
    assertThat(H2SPEC).as("h2spec: run scripts/provision-h2spec.sh").isExecutable();
    TestMember m = member("m1");
    startDataPlane();
    publish(SnapshotBuilder.pool("shop/h2").hosts("localhost").members(m.snapshot(1)));
    Process p =
        new ProcessBuilder(
                H2SPEC.toString(),
                "-h",
                "localhost",
                "-p",
                String.valueOf(dp.trafficPort()),
                "-o",
                "2")
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("h2spec finished").isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    Files.writeString(Path.of("target", "h2spec.txt"), out);
    Matcher summary =
        Pattern.compile("(\\d+) tests, (\\d+) passed, (\\d+) skipped, (\\d+) failed").matcher(out);
    assertThat(summary.find()).as("h2spec summary in:%n%s", out).isTrue();
    System.out.println("FIGURE h2spec (h2c, prior knowledge): " + summary.group());
    assertThat(Integer.parseInt(summary.group(4)))
        .as("failed h2spec tests:%n%s", failures(out))
        .isLessThanOrEqualTo(KNOWN_FAILURES);
  }

  private static String failures(String out) {
    int i = out.indexOf("Failures:");
    return i < 0 ? out : out.substring(i);
  }
}
