package dev.replicapool.dataplane.forward;

import static dev.replicapool.dataplane.RawH2Frames.frame;
import static dev.replicapool.dataplane.RawH2Frames.literal;
import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.RawH2Frames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.DefaultChannelId;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrame;
import io.netty.util.ReferenceCountUtil;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The client side's HTTP/2 codec as {@link Http2Server} sets it up (the stream-state guard before
 * Netty's decoder, {@link H2StreamErrors} first on each stream), fed hand-made client frames. The
 * stream handler answers a request once it has ended, resets it when its path is /reset, and closes
 * its stream on any exception, as the real stream handlers do.
 */
class H2ServerStreamRulesTest {
  static final int DATA = 0;
  static final int HEADERS = 1;
  static final int RST = 3;
  static final int SETTINGS = 4;
  static final int GOAWAY = 7;
  static final int END_STREAM = 1;
  static final int END_HEADERS = 4;

  record Frame(int type, int flags, int stream, long error) {}

  final List<Http2StreamFrame> received = new ArrayList<>();
  final List<Throwable> connectionErrors = new ArrayList<>();
  // A server channel as parent: the multiplexer tells servers from clients by it.
  final EmbeddedChannel ch =
      new EmbeddedChannel(
          new LocalServerChannel(),
          DefaultChannelId.newInstance(),
          true,
          false,
          H2ServerCodec.builder().build(),
          new Http2MultiplexHandler(
              new ChannelInitializer<Http2StreamChannel>() {
                @Override
                protected void initChannel(Http2StreamChannel c) {
                  c.pipeline().addLast(H2StreamErrors.INSTANCE, new Responder());
                }
              }),
          new ChannelInboundHandlerAdapter() {
            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
              connectionErrors.add(cause); // the codec passes connection errors on, and closes
            }
          });

  final class Responder extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Http2StreamFrame f = (Http2StreamFrame) msg;
      received.add(f);
      boolean end = false;
      if (f instanceof Http2HeadersFrame h) {
        if ("/reset".contentEquals(h.headers().path() == null ? "" : h.headers().path())) {
          ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.INTERNAL_ERROR));
          return;
        }
        end = h.isEndStream();
      } else if (f instanceof Http2DataFrame d) {
        end = d.isEndStream();
      }
      ReferenceCountUtil.release(msg);
      if (end) {
        ctx.writeAndFlush(
            new DefaultHttp2HeadersFrame(new DefaultHttp2Headers().status("200"), true));
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  // ---- client frames ---------------------------------------------------------------------------

  /** GET {path} (HPACK: static table entries and literals without indexing), extra fields after. */
  static byte[] request(String path, String... fields) {
    return RawH2Frames.request("localhost", path, fields);
  }

  static byte[] headers(int stream, boolean end, String path, String... fields) {
    return frame(HEADERS, END_HEADERS | (end ? END_STREAM : 0), stream, request(path, fields));
  }

  static byte[] data(int stream, boolean end, int length) {
    return frame(DATA, end ? END_STREAM : 0, stream, new byte[length]);
  }

  static byte[] rst(int stream) {
    return frame(RST, 0, stream, new byte[] {0, 0, 0, 8});
  }

  static byte[] preface() {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(RawH2Frames.preface());
    b.writeBytes(frame(SETTINGS, 0, 0, new byte[0]));
    return b.toByteArray();
  }

  /** Sends the bytes, in pieces of {@code piece} bytes, and returns the frames the server wrote. */
  List<Frame> send(int piece, byte[]... parts) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      all.writeBytes(p);
    }
    byte[] bytes = all.toByteArray();
    for (int i = 0; i < bytes.length && ch.isOpen(); i += piece) {
      ch.writeInbound(Unpooled.wrappedBuffer(bytes, i, Math.min(piece, bytes.length - i)));
      ch.runPendingTasks();
    }
    return written();
  }

  List<Frame> send(byte[]... parts) {
    return send(Integer.MAX_VALUE, parts);
  }

  List<Frame> written() {
    ch.runPendingTasks();
    ByteBuf out = Unpooled.buffer();
    Object o;
    while ((o = ch.readOutbound()) != null) {
      out.writeBytes((ByteBuf) o);
      ((ByteBuf) o).release();
    }
    List<Frame> frames = new ArrayList<>();
    while (out.readableBytes() >= 9) {
      int len = out.readUnsignedMedium();
      int type = out.readByte();
      int flags = out.readByte();
      int stream = out.readInt() & Integer.MAX_VALUE;
      ByteBuf payload = out.readSlice(len);
      long error = -1;
      if (type == RST) {
        error = payload.getUnsignedInt(0);
      } else if (type == GOAWAY) {
        error = payload.getUnsignedInt(4);
      }
      if (type != SETTINGS) {
        frames.add(new Frame(type, flags, stream, error));
      }
    }
    out.release();
    return frames;
  }

  static Frame goAway(Http2Error e) {
    return new Frame(GOAWAY, 0, 0, e.code());
  }

  static Frame reset(int stream, Http2Error e) {
    return new Frame(RST, 0, stream, e.code());
  }

  static Frame response(int stream) {
    return new Frame(HEADERS, END_STREAM | END_HEADERS, stream, -1);
  }

  // ---- the rules -------------------------------------------------------------------------------

  @Test
  void aRequestWithBodyAndTrailersIsServedEvenInOneBytePieces() {
    List<Frame> out =
        send(
            1,
            preface(),
            headers(1, false, "/"),
            data(1, false, 10),
            frame(HEADERS, END_HEADERS | END_STREAM, 1, lit("grpc-status", "0")),
            headers(3, true, "/"));
    assertThat(out).containsExactly(response(1), response(3));
    assertThat(received).hasSize(4);
    assertThat(ch.isOpen()).isTrue();
  }

  @Test
  void dataOnAStreamTheClientEndedIsAConnectionErrorStreamClosed() {
    assertThat(send(preface(), headers(1, true, "/"), data(1, true, 4)))
        .containsExactly(response(1), goAway(Http2Error.STREAM_CLOSED));
    assertThat(ch.isOpen()).isFalse();
    assertThat(connectionErrors).singleElement().asString().contains("after the client ended it");
  }

  @Test
  void headersOnAClosedStreamIsAConnectionErrorStreamClosed() {
    assertThat(send(preface(), headers(1, true, "/"))).containsExactly(response(1));
    assertThat(send(headers(1, true, "/"))).containsExactly(goAway(Http2Error.STREAM_CLOSED));
    assertThat(ch.isOpen()).isFalse();
  }

  @Test
  void headersOnALowerIdTheClientSkippedIsAConnectionErrorProtocolError() {
    assertThat(send(3, preface(), headers(5, true, "/"), headers(3, true, "/")))
        .containsExactly(response(5), goAway(Http2Error.PROTOCOL_ERROR));
    assertThat(ch.isOpen()).isFalse();
  }

  @Test
  void framesAfterOurResetGetAStreamErrorAndTheConnectionLives() {
    assertThat(send(preface(), headers(1, false, "/reset")))
        .containsExactly(reset(1, Http2Error.INTERNAL_ERROR));
    assertThat(send(data(1, false, 8), data(1, true, 8), headers(3, true, "/")))
        .containsExactly(
            reset(1, Http2Error.STREAM_CLOSED), reset(1, Http2Error.STREAM_CLOSED), response(3));
    assertThat(ch.isOpen()).isTrue();
  }

  @Test
  void headersAfterTheClientsResetGetAStreamError() {
    assertThat(
            send(
                preface(),
                headers(1, false, "/"),
                rst(1),
                headers(1, true, "/"),
                headers(3, true, "/")))
        .containsExactly(reset(1, Http2Error.STREAM_CLOSED), response(3));
    assertThat(ch.isOpen()).isTrue();
  }

  @Test
  void streamErrorsFoundByTheCodecResetWithTheirOwnCode() {
    // content-length 10, 4 bytes of DATA: PROTOCOL_ERROR, not the CANCEL of a handler's close
    assertThat(send(preface(), headers(1, false, "/", "content-length", "10"), data(1, true, 4)))
        .containsExactly(reset(1, Http2Error.PROTOCOL_ERROR));
    // a second HEADERS without END_STREAM
    assertThat(send(headers(3, false, "/"), headers(3, false, "/")))
        .containsExactly(reset(3, Http2Error.PROTOCOL_ERROR));
    assertThat(ch.isOpen()).isTrue();
  }

  /**
   * An HPACK bomb in one read: a 4,000-byte field into the dynamic table, then streams naming it
   * 4,000 times each, past the limit of oversized header blocks, then a header block no decoder can
   * read. The connection is closed at the limit, and what follows in the read is skipped: decoded,
   * the unreadable block would be a second connection error (COMPRESSION_ERROR).
   */
  @Test
  void pastAnHpackBombsLimitTheRestOfTheReadIsNotDecoded() {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    all.writeBytes(preface());
    all.writeBytes(
        frame(HEADERS, END_HEADERS | END_STREAM, 1, RawH2Frames.hpackBombLoad("localhost")));
    int blocks = H2ServerCodec.MAX_OVERSIZED_HEADER_BLOCKS + 1;
    for (int i = 0; i < blocks; i++) {
      all.writeBytes(
          frame(HEADERS, END_HEADERS | END_STREAM, 3 + 2 * i, RawH2Frames.hpackBomb("localhost")));
    }
    byte[] unreadable = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f}; // no such index
    all.writeBytes(frame(HEADERS, END_HEADERS | END_STREAM, 3 + 2 * blocks, unreadable));

    List<Frame> out = send(all.toByteArray());

    assertThat(out)
        .filteredOn(f -> f.type() == GOAWAY)
        .containsExactly(goAway(Http2Error.ENHANCE_YOUR_CALM));
    assertThat(connectionErrors)
        .singleElement()
        .asString()
        .contains("header blocks past the size limit");
    assertThat(ch.isOpen()).isFalse();
  }

  /** {@code pairs} streams opened and reset back to back from stream {@code first} on. */
  static byte[] rapidResets(int first, int pairs) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (int i = 0, id = first; i < pairs; i++, id += 2) {
      all.writeBytes(headers(id, false, "/"));
      all.writeBytes(rst(id));
    }
    return all.toByteArray();
  }

  @Test
  void streamsResetInTheReadThatOpenedThemPastTheBudgetCloseTheConnection() {
    List<Frame> out = send(preface(), rapidResets(1, H2ControlFrameBudget.BURST + 1));
    assertThat(out).containsExactly(goAway(Http2Error.ENHANCE_YOUR_CALM));
    assertThat(connectionErrors)
        .singleElement()
        .asString()
        .contains("streams reset in the read that opened them");
    assertThat(ch.isOpen()).isFalse();
  }

  @Test
  void streamsResetInTheReadThatOpenedThemUpToTheBudgetAreNoAttack() {
    assertThat(send(preface(), rapidResets(1, H2ControlFrameBudget.BURST))).isEmpty();
    assertThat(ch.isOpen()).isTrue();
  }

  /** A gRPC client whose deadlines cancel its calls resets each once it went out: a later read. */
  @Test
  void resetsInALaterReadThanTheirStreamsOpenedNeverCount() {
    send(preface());
    for (int i = 0, id = 1; i < 3 * H2ControlFrameBudget.BURST; i++, id += 2) {
      send(headers(id, false, "/"));
      send(rst(id));
    }
    assertThat(written()).isEmpty();
    assertThat(connectionErrors).isEmpty();
    assertThat(ch.isOpen()).isTrue();
  }

  @Test
  void anAnswerPaysForTheStreamsResetBeforeIt() {
    int burst = H2ControlFrameBudget.BURST;
    assertThat(send(preface(), rapidResets(1, burst), headers(2 * burst + 1, true, "/")))
        .containsExactly(response(2 * burst + 1));
    assertThat(send(rapidResets(2 * burst + 3, burst))).isEmpty();
    assertThat(ch.isOpen()).isTrue();
  }

  static byte[] lit(String name, String value) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    literal(b, name, value);
    return b.toByteArray();
  }
}
