package dev.replicapool.dataplane.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;

class TracingConfigTest {
  @Test
  void offByDefault() {
    assertThat(TracingConfig.OFF.enabled()).isFalse();
  }

  @Test
  void spansGoToV1TracesUnderTheEndpoint() {
    var c = new TracingConfig(URI.create("http://127.0.0.1:4318"), 0.1, 100);
    assertThat(c.enabled()).isTrue();
    assertThat(c.tracesUrl()).isEqualTo("http://127.0.0.1:4318/v1/traces");
    assertThat(new TracingConfig(URI.create("http://h:4318/"), 1, 1).tracesUrl())
        .isEqualTo("http://h:4318/v1/traces");
  }

  @Test
  void outOfRangeValuesAreRefused() {
    assertThatThrownBy(() -> new TracingConfig(null, 1.5, 10))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TracingConfig(null, 0.5, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TracingConfig(URI.create("grpc://h:4317"), 0.5, 10))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
