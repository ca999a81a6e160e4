package dev.replicapool.dataplane.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HostSyntaxTest {
  static boolean valid(String host) {
    byte[] b = ("x" + host + "x").getBytes(StandardCharsets.ISO_8859_1);
    return HostSyntax.valid(b, 1, b.length - 1); // bounds inside a larger array, as in a head
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a.example",
        "a.example:8080",
        "a.example:",
        "10.0.0.1:65535",
        "[::1]",
        "[2001:db8::1]:443",
        "xn--bcher-kva.example",
        "a_b~c%20!$&'()*+,;=",
      })
  void theseAreHosts(String host) {
    assertThat(valid(host)).as(host).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        ":80",
        "user@a",
        "bad host",
        "a/x",
        "a:65536",
        "a:000080",
        "a:8x",
        "[::1",
        "[::g]",
        "[::1]x",
        "a:1:2",
      })
  void theseAreNot(String host) {
    assertThat(valid(host)).as(host).isFalse();
  }
}
