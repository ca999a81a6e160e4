package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2StreamFrame;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What each try of a client stream sends, and when a retry can send it all again. */
class H2RequestBodyTest {
  final H2RequestBody body = new H2RequestBody();

  static Http2DataFrame data(String s, boolean end) {
    return new DefaultHttp2DataFrame(Unpooled.copiedBuffer(s, StandardCharsets.UTF_8), end);
  }

  /** What a try writes: the frames' text, trailers as "<trailers>"; the frames released. */
  List<String> drain() {
    List<String> out = new ArrayList<>();
    Http2StreamFrame f;
    while ((f = body.poll()) != null) {
      if (f instanceof Http2DataFrame d) {
        out.add(d.content().toString(StandardCharsets.UTF_8) + (d.isEndStream() ? "|end" : ""));
        d.release();
      } else {
        out.add("<trailers>" + (((Http2HeadersFrame) f).isEndStream() ? "|end" : ""));
      }
    }
    return out;
  }

  @Test
  void aTryThatSentNothingKeepsEverythingForTheNext() {
    body.add(data("order=42&", false));
    assertThat(body.restart()).isTrue();
    body.add(data("qty=7", true));
    assertThat(drain()).containsExactly("order=42&", "qty=7|end");
    body.release();
  }

  @Test
  void aRetryAfterFramesWentOutSendsTheSameFramesAgainThenWhatFollows() {
    body.add(data("order=42&", false));
    assertThat(drain()).containsExactly("order=42&");
    assertThat(body.nothingPending()).isTrue();
    assertThat(body.restart()).isTrue();
    body.add(data("qty=7", false));
    body.add(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().add("grpc-x", "1"), true));
    assertThat(drain()).containsExactly("order=42&", "qty=7", "<trailers>|end");
    assertThat(body.restart()).isTrue();
    assertThat(drain()).containsExactly("order=42&", "qty=7", "<trailers>|end");
    body.release();
  }

  @Test
  void aBodyPastTheBoundIsNotKeptAndCannotBeSentAgainOnceSomeWentOut() {
    String chunk = "x".repeat(16 * 1024);
    for (int i = 0; i < 4; i++) {
      assertThat(body.add(data(chunk, false))).isTrue(); // 64 KiB: still kept
    }
    assertThat(body.add(data("y", true))).as("one byte past the bound").isFalse();
    assertThat(body.restart()).as("nothing went out yet").isTrue();
    assertThat(drain()).hasSize(5);
    assertThat(body.restart()).isFalse();
    body.release();
  }

  @Test
  void aHedgeGetsTheWholeRequestWhileTheTryInFrontKeepsItsOwnFrames() {
    body.add(data("order=42&", false));
    body.add(data("qty=7", true));
    List<String> hedge = new ArrayList<>();
    for (Http2StreamFrame f : body.copy()) {
      Http2DataFrame d = (Http2DataFrame) f;
      hedge.add(d.content().toString(StandardCharsets.UTF_8) + (d.isEndStream() ? "|end" : ""));
      d.release();
    }
    assertThat(hedge).containsExactly("order=42&", "qty=7|end");
    assertThat(drain()).as("the try in front").containsExactly("order=42&", "qty=7|end");
    assertThat(body.restart()).as("a retry after both").isTrue();
    assertThat(drain()).containsExactly("order=42&", "qty=7|end");
    body.release();
  }

  @Test
  void aHedgeThatWinsDropsWhatTheTryInFrontHadNotSentYet() {
    body.add(data("order=42", true));
    body.copy().forEach(f -> ((Http2DataFrame) f).release());
    body.dropPending();
    assertThat(body.nothingPending()).isTrue();
    assertThat(drain()).isEmpty();
    body.release();
  }
}
