package dev.replicapool.dataplane.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestHeadTest {
  static final byte[] VIA = "via: 1.1 replicapool-test".getBytes(StandardCharsets.ISO_8859_1);

  static ByteBuf buf(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
  }

  static String upstream(String request) {
    ByteBuf in = buf(request);
    int len = HeadScanner.headLength(in, 4096, 8192);
    assertThat(len).isPositive();
    RequestHead h = new RequestHead();
    assertThat(h.parse(in, len)).isNull();
    ByteBuf out = Unpooled.buffer();
    h.writeUpstream(out, "10.1.2.3", "http".getBytes(), VIA, null);
    return out.toString(StandardCharsets.ISO_8859_1);
  }

  @Test
  void aPlainGetGoesOutWithTheProxysHeadersAdded() {
    assertThat(upstream("GET /track/1 HTTP/1.1\r\nHost: a.example\r\nAccept: */*\r\n\r\n"))
        .isEqualTo(
            "GET /track/1 HTTP/1.1\r\nHost: a.example\r\nAccept: */*\r\n"
                + "x-forwarded-for: 10.1.2.3\r\nx-forwarded-proto: http\r\n"
                + "x-forwarded-host: a.example\r\nvia: 1.1 replicapool-test\r\n\r\n");
  }
}
