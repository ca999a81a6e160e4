package dev.replicapool.dataplane.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class XxHash64Test {
  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  static byte[] counting(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) i;
    }
    return b;
  }

  @Test
  void matchesTheReferenceImplementationForEveryInputLengthClass() {
    // Values of the reference implementation (the xxhash C library) for seeds 0 and 1.
    assertThat(XxHash64.hash(ascii(""), 0)).isEqualTo(0xef46db3751d8e999L);
    assertThat(XxHash64.hash(ascii(""), 1)).isEqualTo(0xd5afba1336a3be4bL);
    assertThat(XxHash64.hash(ascii("a"), 0)).isEqualTo(0xd24ec4f1a98c6e5bL);
    assertThat(XxHash64.hash(ascii("abc"), 0)).isEqualTo(0x44bc2cf5ad770999L);
    assertThat(XxHash64.hash(ascii("host-1.example:8080"), 0)).isEqualTo(0x9fa8e465d998bd7aL);
    assertThat(XxHash64.hash(ascii("host-1.example:8080"), 1)).isEqualTo(0x6fbc1882a0ba7c07L);
    assertThat(XxHash64.hash(counting(40), 0)).isEqualTo(0xf5da40f1b11741e9L);
    assertThat(XxHash64.hash(counting(100), 1)).isEqualTo(0x3d19a3a2098a7023L);
  }
}
