package dev.replicapool.controlplane.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadReportsTest {
  /** The exact form the sample replica emits with --workers (its CapacityHttpTest checks it). */
  @Test
  void sampleReplicaForm() {
    LoadReport r = LoadReports.parse("TEXT cpu_utilization=0.9731, rps_fractional=98.0");
    assertThat(r).isNotNull();
    assertThat(r.cpuUtilization()).isEqualTo(0.9731);
    assertThat(LoadReports.parse("TEXT cpu_utilization=0.0000, rps_fractional=0.0")).isNotNull();
  }

  @Test
  void textForm() {
    LoadReport r =
        LoadReports.parse(
            "TEXT cpu_utilization=0.3, mem_utilization=0.8, rps_fractional=120, eps=2,"
                + " named_metrics.queue=7");
    assertThat(r).isEqualTo(new LoadReport(0, 0.3, 0.8, 120, 2, Map.of("queue", 7.0)));
    assertThat(r.utilization()).isEqualTo(0.3);
  }

  @Test
  void theRequestsAMemberHoldsAreANamedMetric() {
    assertThat(LoadReports.parse("TEXT application_utilization=1.5, named_metrics.in_flight=6"))
        .extracting(LoadReport::inFlight)
        .isEqualTo(6.0);
    assertThat(
            LoadReports.parse("JSON {\"named_metrics\": {\"in_flight\": 2, \"queue\": 9}}")
                .inFlight())
        .isEqualTo(2.0);
    assertThat(LoadReports.parse("TEXT application_utilization=0.5").inFlight())
        .as("not said")
        .isNaN();
    assertThat(LoadReports.parse("TEXT named_metrics.in_flight=-1"))
        .as("a count below zero: no report")
        .isNull();
  }

  @Test
  void jsonForm() {
    LoadReport r =
        LoadReports.parse(
            "JSON {\"application_utilization\": 0.9, \"cpu_utilization\": 0.2,"
                + " \"named_metrics\": {\"queue\": 3}}");
    assertThat(r).isEqualTo(new LoadReport(0.9, 0.2, 0, 0, 0, Map.of("queue", 3.0)));
    assertThat(r.utilization()).as("the application's own figure first").isEqualTo(0.9);
  }

  @Test
  void binaryFormInEitherHeader() {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.write(0x09); // field 1, 64-bit: cpu_utilization
    b.writeBytes(le(0.75));
    b.write(0x18); // field 3, varint: rps (deprecated), skipped
    b.write(0x96);
    b.write(0x01);
    ByteArrayOutputStream entry = new ByteArrayOutputStream();
    entry.write(0x0a); // key: string
    entry.write(5);
    entry.writeBytes("queue".getBytes(StandardCharsets.UTF_8));
    entry.write(0x11); // value: double
    entry.writeBytes(le(4));
    b.write(0x42); // field 8, length-delimited: named_metrics entry
    b.write(entry.size());
    b.writeBytes(entry.toByteArray());
    b.write(0x49); // field 9, 64-bit: application_utilization
    b.writeBytes(le(0.5));
    String base64 = Base64.getEncoder().encodeToString(b.toByteArray());
    LoadReport expected = new LoadReport(0.5, 0.75, 0, 0, 0, Map.of("queue", 4.0));
    assertThat(LoadReports.bin(base64)).isEqualTo(expected);
    assertThat(LoadReports.parse("BIN " + base64)).isEqualTo(expected);
  }

  @Test
  void whatIsNoReportGivesNull() {
    for (String bad :
        new String[] {
          "cpu_utilization=0.3", // no form prefix
          "TEXT cpu_utilization=-0.1",
          "TEXT cpu_utilization=NaN",
          "TEXT cpu_utilization=Infinity",
          "TEXT cpu_utilization",
          "TEXT unknown_field=1",
          "TEXT named_metrics.=1",
          "JSON [1, 2]",
          "JSON {\"cpu_utilization\": \"high\"}",
          "JSON {\"cpu_utilization\": 0.3",
          "BIN ***",
          "TEXT cpu_utilization=" + "1".repeat(LoadReports.MAX_CHARS),
        }) {
      assertThat(LoadReports.parse(bad)).as(bad).isNull();
    }
    assertThat(LoadReports.bin(Base64.getEncoder().encodeToString(new byte[] {0x09, 1, 2})))
        .as("a double cut short")
        .isNull();
    assertThat(LoadReports.bin(Base64.getEncoder().encodeToString(new byte[] {0x42, 9, 0x0a})))
        .as("an entry longer than what is left")
        .isNull();
  }

  private static byte[] le(double d) {
    return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putDouble(d).array();
  }
}
