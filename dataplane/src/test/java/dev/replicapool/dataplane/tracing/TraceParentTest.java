package dev.replicapool.dataplane.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TraceParentTest {
  static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String SPAN = "00f067aa0ba902b7";

  @Test
  void theSpecificationsExampleParses() {
    TraceParent p = TraceParent.parse("00-" + TRACE + "-" + SPAN + "-01");
    assertThat(p).isEqualTo(new TraceParent(TRACE, SPAN, true));
    assertThat(TraceParent.parse("00-" + TRACE + "-" + SPAN + "-00").sampled()).isFalse();
  }

  @Test
  void invalidHeadersAreTreatedAsAbsent() {
    assertThat(TraceParent.parse(null)).isNull();
    assertThat(TraceParent.parse("")).isNull();
    // uppercase hex, all-zero ids, version ff, a version 00 with a tail, wrong separators
    assertThat(TraceParent.parse("00-" + TRACE.toUpperCase() + "-" + SPAN + "-01")).isNull();
    assertThat(TraceParent.parse("00-" + "0".repeat(32) + "-" + SPAN + "-01")).isNull();
    assertThat(TraceParent.parse("00-" + TRACE + "-" + "0".repeat(16) + "-01")).isNull();
    assertThat(TraceParent.parse("ff-" + TRACE + "-" + SPAN + "-01")).isNull();
    assertThat(TraceParent.parse("00-" + TRACE + "-" + SPAN + "-01-extra")).isNull();
    assertThat(TraceParent.parse("00_" + TRACE + "-" + SPAN + "-01")).isNull();
    assertThat(TraceParent.parse("00-" + TRACE + "-" + SPAN + "-0g")).isNull();
  }

  @Test
  void aLaterVersionIsReadForItsFirstFieldsAndItsTailIgnored() {
    assertThat(TraceParent.parse("01-" + TRACE + "-" + SPAN + "-03-what-comes-next"))
        .isEqualTo(new TraceParent(TRACE, SPAN, true));
    assertThat(TraceParent.parse("01-" + TRACE + "-" + SPAN + "-03x")).isNull();
  }

  @Test
  void formatWritesVersion00ThatParsesBack() {
    String h = TraceParent.format(TRACE, SPAN, true);
    assertThat(h).isEqualTo("00-" + TRACE + "-" + SPAN + "-01");
    assertThat(TraceParent.parse(h)).isEqualTo(new TraceParent(TRACE, SPAN, true));
    assertThat(TraceParent.format(TRACE, SPAN, false)).endsWith("-00");
  }
}
