package dev.replicapool.controlplane.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Base64;

/**
 * Coverage-guided fuzzing (Jazzer) of the members' load reports: any header value gives a report
 * whose figures are finite and not negative, or null; never an exception. Inputs in {@code
 * src/test/resources/dev/replicapool/controlplane/load/LoadReportFuzzTestInputs/<target>/}.
 */
class LoadReportFuzzTest {
  @FuzzTest(maxDuration = "20s")
  void headerValue(byte[] data) {
    String text = new String(data, java.nio.charset.StandardCharsets.ISO_8859_1);
    check(LoadReports.parse(text));
    check(LoadReports.parse("BIN " + Base64.getEncoder().encodeToString(data)));
    check(LoadReports.bin(Base64.getEncoder().encodeToString(data)));
  }

  private static void check(LoadReport r) {
    if (r == null) {
      return;
    }
    for (double d :
        new double[] {
          r.applicationUtilization(),
          r.cpuUtilization(),
          r.memUtilization(),
          r.rpsFractional(),
          r.eps(),
          r.utilization()
        }) {
      assertThat(d).isFinite().isNotNegative();
    }
    assertThat(r.namedMetrics().values()).allMatch(Double::isFinite);
  }
}
