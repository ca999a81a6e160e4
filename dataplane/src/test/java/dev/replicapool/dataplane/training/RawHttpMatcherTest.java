package dev.replicapool.dataplane.training;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The warm-up's end-of-head and end-of-answer counting, over reads split anywhere. */
class RawHttpMatcherTest {
  static final byte[] HEAD_END = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  @Test
  void countsHeadsWholeOrSplitAcrossReads() {
    RawHttp.Matcher m = new RawHttp.Matcher(HEAD_END);
    assertThat(m.count(Buffer.buffer("GET / HTTP/1.1\r\nhost: a\r\n\r\nGET / HTTP/1.1\r\n\r\n")))
        .isEqualTo(2);
    assertThat(m.count(Buffer.buffer("GET / HTTP/1.1\r\nhost: a\r"))).isZero();
    assertThat(m.count(Buffer.buffer("\n\r"))).isZero();
    assertThat(m.count(Buffer.buffer("\nGET"))).isEqualTo(1);
  }

  @Test
  void aCarriageReturnThatBreaksAMatchStartsTheNextOne() {
    RawHttp.Matcher m = new RawHttp.Matcher(HEAD_END);
    assertThat(m.count(Buffer.buffer("x\r\n\r\r\n\r\n"))).isEqualTo(1);
    assertThat(m.count(Buffer.buffer("\r\r\n\r\n"))).isEqualTo(1);
  }

  @Test
  void countsAnswersByTheirBodyAfterTheHead() {
    RawHttp.Matcher m = new RawHttp.Matcher("\r\n\r\nok".getBytes(StandardCharsets.US_ASCII));
    String answer = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nvia: 1.1 p\r\n\r\nok";
    assertThat(m.count(Buffer.buffer(answer + answer))).isEqualTo(2);
    assertThat(m.count(Buffer.buffer(answer.substring(0, answer.length() - 1)))).isZero();
    assertThat(m.count(Buffer.buffer("k"))).isEqualTo(1);
    assertThat(m.count(Buffer.buffer("HTTP/1.1 502 Bad Gateway\r\n\r\nno"))).isZero();
  }
}
