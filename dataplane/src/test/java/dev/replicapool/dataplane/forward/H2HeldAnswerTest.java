package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A member's 5xx answer held back for a retry: what it keeps, up to where, and how it goes. */
class H2HeldAnswerTest {
  final EmbeddedChannel channel = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
  final ChannelHandlerContext client = channel.pipeline().firstContext();

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  static DefaultHttp2HeadersFrame head(boolean end) {
    return new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("503"), end);
  }

  static DefaultHttp2DataFrame data(int bytes, boolean end) {
    return new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(new byte[bytes]), end);
  }

  @Test
  void anAnswerThatCameWholeGoesAsItCame() {
    H2HeldAnswer a = new H2HeldAnswer(503, head(false));
    assertThat(a.whole()).isFalse();
    assertThat(a.add(data(4, false))).isTrue();
    assertThat(a.add(data(3, true))).isTrue();
    assertThat(a.whole()).isTrue();
    assertThat(a.head().status()).hasToString("503");

    assertThat(a.writeTo(client)).as("its body bytes").isEqualTo(7);
    channel.flushOutbound();
    assertThat(channel.<Object>readOutbound()).isInstanceOf(Http2HeadersFrame.class);
    Http2DataFrame first = channel.readOutbound();
    Http2DataFrame last = channel.readOutbound();
    assertThat(first.content().readableBytes()).isEqualTo(4);
    assertThat(last.isEndStream()).isTrue();
    first.release();
    last.release();
  }

  @Test
  void aBodyPastTheLimitIsKeptButSaysTheAnswerMustGoOn() {
    H2HeldAnswer a = new H2HeldAnswer(502, head(false));
    assertThat(a.add(data(ClientOutput.HOLD_LIMIT, false))).isTrue();
    assertThat(a.add(data(1, false))).isFalse();
    assertThat(a.writeTo(client)).isEqualTo(ClientOutput.HOLD_LIMIT + 1);
  }

  @Test
  void aGrpcStatusIsReadFromItsTrailersOnceWhole() {
    H2HeldAnswer a = new H2HeldAnswer(503, head(false));
    assertThat(a.grpcStatus()).isNull();
    a.add(new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().set("grpc-status", "14"), true));
    assertThat(a.grpcStatus()).hasToString("14");
    a.release();
  }

  @Test
  void aDroppedAnswerReleasesItsBody() {
    H2HeldAnswer a = new H2HeldAnswer(503, head(false));
    DefaultHttp2DataFrame d = data(10, false);
    ByteBuf content = d.content();
    a.add(d);
    a.release();
    assertThat(content.refCnt()).isZero();
  }
}
