package dev.replicapool.dataplane.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Coverage-guided fuzzing (Jazzer) of the parsers that read a client's or a member's bytes. Each
 * target checks the parser's own contract, not only that it does not crash. Without {@code
 * JAZZER_FUZZ} these run as regression tests over the inputs kept in {@code
 * src/test/resources/dev/replicapool/dataplane/wire/WireFuzzTestInputs/<target>/} (seeds, and every
 * input that once failed); {@code scripts/fuzz.sh} fuzzes each for a bounded time.
 */
class WireFuzzTest {
  static final int MAX_LINE = 4096;
  static final int MAX_HEADERS = 8192;
  static final byte[] HTTP = "http".getBytes(StandardCharsets.ISO_8859_1);
  static final byte[] VIA = "via: 1.1 fuzz".getBytes(StandardCharsets.ISO_8859_1);

  /**
   * A request head: its length never exceeds what was read; a refusal is one of the statuses the
   * proxy answers with; a head it accepts is written on to the member as one that parses back to
   * the same request (method, target, host, framing, body length).
   */
  @FuzzTest(maxDuration = "20s")
  void requestHead(byte[] data) {
    ByteBuf in = Unpooled.wrappedBuffer(data);
    int len = HeadScanner.headLength(in, MAX_LINE, MAX_HEADERS);
    if (len <= 0) {
      assertThat(len)
          .isIn(HeadScanner.INCOMPLETE, HeadScanner.LINE_TOO_LONG, HeadScanner.HEADERS_TOO_LARGE);
      return;
    }
    assertThat(len).isLessThanOrEqualTo(data.length);
    RequestHead head = new RequestHead();
    WireError refused = head.parse(in, len);
    if (refused != null) {
      assertThat(refused.status()).isIn(400, 405, 413, 414, 431, 501, 505);
      return;
    }
    ByteBuf up = Unpooled.buffer();
    head.writeUpstream(up, "198.18.0.1", HTTP, VIA, "default.example");
    int upLen = HeadScanner.headLength(up, 1 << 20, 1 << 20);
    assertThat(upLen).as("the head sent on is one whole head").isEqualTo(up.readableBytes());
    RequestHead again = new RequestHead();
    assertThat(again.parse(up, upLen)).as("the head sent on parses").isNull();
    assertThat(again.methodName()).isEqualTo(head.methodName());
    assertThat(again.target()).isEqualTo(head.target());
    assertThat(again.framing()).isEqualTo(head.framing());
    assertThat(again.contentLength()).isEqualTo(head.contentLength());
    assertThat(again.bodyless()).isEqualTo(head.bodyless());
    if (head.host() != null) {
      assertThat(again.host()).isEqualTo(head.host());
    }
  }

  /**
   * A member's response head: a refusal is a reason (its answer becomes a 502), an accepted head
   * has a framing consistent with its length and is written to the client as a head that parses
   * back to the same status and framing.
   */
  @FuzzTest(maxDuration = "20s")
  void responseHead(byte[] data) {
    ByteBuf in = Unpooled.wrappedBuffer(data);
    int len = HeadScanner.headLength(in, MAX_HEADERS, MAX_HEADERS);
    if (len <= 0) {
      return;
    }
    ResponseHead head = new ResponseHead();
    String refused = head.parse(in, len, false);
    if (refused != null) {
      assertThat(refused).isNotBlank();
      return;
    }
    assertThat(head.status()).isBetween(100, 999);
    if (head.framing() == ResponseHead.Framing.LENGTH) {
      assertThat(head.contentLength()).isNotNegative();
    }
    if (head.interim()) {
      return;
    }
    ByteBuf down = Unpooled.buffer();
    head.writeDownstream(down, false, null);
    int downLen = HeadScanner.headLength(down, 1 << 20, 1 << 20);
    assertThat(downLen).as("the head sent on is one whole head").isEqualTo(down.readableBytes());
    ResponseHead again = new ResponseHead();
    assertThat(again.parse(down, downLen, false)).as("the head sent on parses").isNull();
    assertThat(again.status()).isEqualTo(head.status());
    assertThat(again.framing()).isEqualTo(head.framing());
    assertThat(again.contentLength()).isEqualTo(head.contentLength());
  }

  /**
   * A chunked body, strict (a client's) and lenient (a member's): the end and the payload do not
   * depend on how the bytes were split into reads; the end lies within the bytes; the payload
   * handed out is exactly the payload counted, and never more than the bytes read.
   */
  @FuzzTest(maxDuration = "20s")
  void chunkedBody(byte[] data) {
    for (boolean strict : new boolean[] {true, false}) {
      Result whole = feed(strict, data, List.of(data.length));
      if (data.length > 1) {
        int a = 1 + Math.floorMod(data[0], data.length - 1);
        int b = Math.min(data.length, a + 1 + Math.floorMod(data[data.length - 1], 7));
        Result split = feed(strict, data, List.of(a, b, data.length));
        assertThat(split).as("strict=%s, split at %d and %d", strict, a, b).isEqualTo(whole);
      }
      assertThat(whole.payload.length()).isLessThanOrEqualTo(data.length);
      if (whole.end >= 0) {
        assertThat(whole.end).isBetween(1, data.length);
      }
    }
  }

  record Result(int end, String payload) {}

  /** Feeds {@code data} cut at {@code cuts}; the end index in {@code data}, or MORE/MALFORMED. */
  static Result feed(boolean strict, byte[] data, List<Integer> cuts) {
    ChunkedFramer f = strict ? ChunkedFramer.strict() : ChunkedFramer.lenient();
    StringBuilder payload = new StringBuilder();
    ChunkedFramer.Payload sink =
        (buf, i, n) -> payload.append(buf.toString(i, n, StandardCharsets.ISO_8859_1));
    List<Integer> ends = new ArrayList<>(cuts);
    int from = 0;
    for (int to : ends) {
      if (to <= from) {
        continue;
      }
      ByteBuf part = Unpooled.wrappedBuffer(data, from, to - from);
      int r = f.feed(part, 0, part.writerIndex(), sink);
      if (r == ChunkedFramer.MALFORMED) {
        return new Result(ChunkedFramer.MALFORMED, "");
      }
      if (r != ChunkedFramer.MORE) {
        assertThat(f.payload()).isEqualTo(payload.length());
        return new Result(from + r, payload.toString());
      }
      from = to;
    }
    assertThat(f.payload()).isEqualTo(payload.length());
    return new Result(ChunkedFramer.MORE, payload.toString());
  }
}
