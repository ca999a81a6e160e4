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
    ChunkedFramer f = ChunkedFramer.strict();
    int end = f.feed(b, 0, b.writerIndex(), null);
    assertThat(b.toString(end, b.writerIndex() - end, StandardCharsets.ISO_8859_1))
        .isEqualTo("GET /next");
    assertThat(f.payload()).isEqualTo(8);
  }

  @Test
  void worksAcrossAnySplitAndHandsOutThePayload() {
    String body = "4\r\nwiki\r\n5\r\npedia\r\n0\r\n\r\n";
    for (int split = 1; split < body.length(); split++) {
      ChunkedFramer f = ChunkedFramer.strict();
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
      assertThat(ChunkedFramer.strict().feed(b, 0, b.writerIndex(), null))
          .as(bad)
          .isEqualTo(ChunkedFramer.MALFORMED);
    }
  }

  /** Each line of a chunked body ended by a bare LF instead of CRLF, one at a time. */
  private static final String[] BARE_LF =
      new String[] {
        "5\nhello\r\n0\r\n\r\n", // size line
        "5;x=1\nhello\r\n0\r\n\r\n", // size line with an extension
        "5\r\nhello\n0\r\n\r\n", // after the data
        "5\r\nhello\r\n0\n\r\n", // last chunk
        "5\r\nhello\r\n0\r\n\n", // end of the trailer section
        "5\r\nhello\r\n0\r\nT: x\n\r\n", // trailer line
        "5\nhello\n0\n\n", // every line
      };

  @Test
  void aRequestsBareLfEndsNoLine() {
    for (String body : BARE_LF) {
      ByteBuf b = buf(body);
      assertThat(ChunkedFramer.strict().feed(b, 0, b.writerIndex(), null))
          .as(body)
          .isEqualTo(ChunkedFramer.MALFORMED);
    }
  }

  @Test
  void anAnswersBareLfEndsItsLine() {
    for (String body : BARE_LF) {
      ByteBuf b = buf(body + "X");
      ChunkedFramer f = ChunkedFramer.lenient();
      assertThat(f.feed(b, 0, b.writerIndex(), null)).as(body).isEqualTo(b.writerIndex() - 1);
      assertThat(f.payload()).isEqualTo(5);
    }
  }

  @Test
  void inARequestWhitespaceAfterTheSizeOnlyLeadsToAnExtension() {
    ByteBuf spaced = buf("5 \r\nhello\r\n0\r\n\r\n");
    assertThat(ChunkedFramer.strict().feed(spaced, 0, spaced.writerIndex(), null))
        .isEqualTo(ChunkedFramer.MALFORMED);
    ByteBuf answer = buf("5 \r\nhello\r\n0\r\n\r\n");
    assertThat(ChunkedFramer.lenient().feed(answer, 0, answer.writerIndex(), null))
        .isEqualTo(answer.writerIndex());
    ByteBuf extension = buf("5 \t;a=1\r\nhello\r\n0\r\n\r\n");
    assertThat(ChunkedFramer.strict().feed(extension, 0, extension.writerIndex(), null))
        .isEqualTo(extension.writerIndex());
  }
}
