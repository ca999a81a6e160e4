package dev.replicapool.dataplane.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ChunkedFramerTest {
  static ByteBuf buf(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
  }

  @Test
  void findsTheEndOfABodyAndWhatFollowsIt() {
    ByteBuf b = buf("5\r\nhello\r\n3;ext=1\r\nabc\r\n0\r\nTrailer: x\r\n\r\nGET /next");
    ChunkedFramer f = new ChunkedFramer();
    int end = f.feed(b, 0, b.writerIndex(), null);
    assertThat(b.toString(end, b.writerIndex() - end, StandardCharsets.ISO_8859_1))
        .isEqualTo("GET /next");
    assertThat(f.payload()).isEqualTo(8);
  }

  @Test
  void worksAcrossAnySplitAndHandsOutThePayload() {
    String body = "4\r\nwiki\r\n5\r\npedia\r\n0\r\n\r\n";
    for (int split = 1; split < body.length(); split++) {
      ChunkedFramer f = new ChunkedFramer();
      StringBuilder payload = new StringBuilder();
      ChunkedFramer.Payload sink =
          (bb, i, n) -> payload.append(bb.toString(i, n, StandardCharsets.ISO_8859_1));
      ByteBuf a = buf(body.substring(0, split));
      ByteBuf c = buf(body.substring(split));
      assertThat(f.feed(a, 0, a.writerIndex(), sink)).isEqualTo(ChunkedFramer.MORE);
      assertThat(f.feed(c, 0, c.writerIndex(), sink)).isEqualTo(c.writerIndex());
      assertThat(payload.toString()).as("split at %d", split).isEqualTo("wikipedia");
    }
  }

  @Test
  void brokenFramingIsMalformed() {
    for (String bad : new String[] {"zz\r\n", "5\r\nhelloXX", "1234567890123456\r\n", "\r\n"}) {
      ByteBuf b = buf(bad);
      assertThat(new ChunkedFramer().feed(b, 0, b.writerIndex(), null))
          .as(bad)
          .isEqualTo(ChunkedFramer.MALFORMED);
    }
  }
}
