package dev.replicapool.dataplane.forward;

import static io.netty.handler.codec.http2.Http2CodecUtil.FRAME_HEADER_LENGTH;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.DecoratingHttp2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2Stream;
import java.util.List;

/**
 * Looks at each client frame's header before Netty's decoder does, for the stream-state rules of
 * RFC 9113 5.1 and 5.1.1 that Netty's codec does not apply: once a stream is gone from its
 * connection Netty cannot tell a stream the client ended from one that was reset or one the client
 * skipped, and answers all three with a stream error (and a second HEADERS on a stream the client
 * ended with HEADERS alone with PROTOCOL_ERROR). Here:
 *
 * <ul>
 *   <li>HEADERS or DATA on a stream the client ended (half-closed remote, or closed and not reset):
 *       connection error STREAM_CLOSED;
 *   <li>HEADERS or DATA on a stream id the client skipped before opening a higher one: connection
 *       error PROTOCOL_ERROR;
 *   <li>a stream either side reset stays Netty's (a stream error, or ignored): frames the client
 *       sent before it saw our RST_STREAM may still come. The last {@value #RESETS} resets per
 *       connection are remembered (RFC 9113 5.1 lets an endpoint bound that period), and the last
 *       {@value #GAPS} runs of skipped ids;
 *   <li>a PING or SETTINGS past the connection's {@link H2ControlFrameBudget}: connection error
 *       ENHANCE_YOUR_CALM, before Netty reads it (and the rest of the flood with it);
 *   <li>an RST_STREAM for a stream opened in the same read past the connection's {@link
 *       H2ControlFrameBudget#prematureResets}: the same (rapid reset).
 * </ul>
 *
 * <p>Frames go to Netty's reader one at a time, so that its stream states are current at each
 * header. One instance per connection, on its event loop.
 */
final class H2StreamStateGuard extends DecoratingHttp2ConnectionDecoder {
  static final int RESETS = 256;
  static final int GAPS = 16;

  /** The ACK flag of PING and SETTINGS frames. */
  private static final int ACK = 0x1;

  private final Http2Connection connection;
  private final H2ControlFrameBudget controlFrames;
  private final H2ControlFrameBudget prematureResets;

  /** The highest stream id the client had opened when the current read began. */
  private int openedBeforeRead;

  private int payloadLeft = -1;
  private boolean failed;
  private int lastAdded = -1; // client stream ids are odd: the first gap would start at 1
  private int[] resets;
  private int resetCount;
  private int[] gaps;
  private int gapCount;

  H2StreamStateGuard(
      Http2ConnectionDecoder delegate,
      H2ControlFrameBudget controlFrames,
      H2ControlFrameBudget prematureResets) {
    super(delegate);
    this.controlFrames = controlFrames;
    this.prematureResets = prematureResets;
    connection = delegate.connection();
    connection.addListener(
        new Http2ConnectionAdapter() {
          @Override
          public void onStreamAdded(Http2Stream stream) {
            streamAdded(stream.id());
          }

          @Override
          public void onStreamClosed(Http2Stream stream) {
            if (stream.isResetSent()) {
              reset(stream.id());
            }
          }
        });
  }

  @Override
  public void decodeFrame(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
      throws Http2Exception {
    openedBeforeRead = connection.remote().lastStreamCreated();
    while (true) {
      if (failed) {
        in.skipBytes(in.readableBytes()); // the connection is closing: the rest is not read
        return;
      }
      int n;
      if (payloadLeft >= 0) {
        if (in.readableBytes() < payloadLeft) {
          return; // the reader has this frame's header and waits for all of its payload
        }
        n = payloadLeft;
        payloadLeft = -1;
      } else {
        if (in.readableBytes() < FRAME_HEADER_LENGTH) {
          return;
        }
        int i = in.readerIndex();
        int length = in.getUnsignedMedium(i);
        check(in.getByte(i + 3), in.getByte(i + 4), in.getInt(i + 5) & Integer.MAX_VALUE);
        n = FRAME_HEADER_LENGTH + length;
        if (in.readableBytes() < n) {
          n = FRAME_HEADER_LENGTH; // so that the reader can refuse an oversized frame now
          payloadLeft = length;
        }
      }
      try {
        super.decodeFrame(ctx, in.readSlice(n), out);
      } catch (Http2Exception e) {
        failed = !Http2Exception.isStreamError(e);
        throw e;
      }
    }
  }

  /**
   * The connection is closing for an attack found past this guard ({@link H2ServerCodec}'s HPACK
   * bomb): what the client sent after it is skipped, not decoded. (Netty's reader skips the rest
   * only after an error of its own; past an HPACK bomb's limit it went on decoding every header
   * block left in the read, about as much again as the limit allowed.)
   */
  void condemn() {
    failed = true;
  }

  private void check(byte type, byte flags, int streamId) throws Http2Exception {
    if ((type == Http2FrameTypes.PING || type == Http2FrameTypes.SETTINGS)
        && (flags & ACK) == 0
        && !controlFrames.spend()) {
      failed = true;
      throw Http2Exception.connectionError(
          Http2Error.ENHANCE_YOUR_CALM,
          "more than %d PING and SETTINGS frames with no answer between them",
          H2ControlFrameBudget.BURST);
    }
    if (type == Http2FrameTypes.RST_STREAM && streamId != 0) {
      if (streamId > openedBeforeRead && !prematureResets.spend()) {
        failed = true;
        throw Http2Exception.connectionError(
            Http2Error.ENHANCE_YOUR_CALM,
            "more than %d streams reset in the read that opened them with no answer between them",
            H2ControlFrameBudget.BURST);
      }
      reset(streamId);
      return;
    }
    if ((type != Http2FrameTypes.HEADERS && type != Http2FrameTypes.DATA)
        || !connection.remote().isValidStreamId(streamId)
        || streamId > connection.remote().lastStreamCreated()) {
      return; // a new stream, or one that never was: Netty's rules
    }
    Http2Stream s = connection.stream(streamId);
    if (s != null) {
      if (s.state().remoteSideOpen() || s.isResetSent()) {
        return;
      }
      throw fail(
          Http2Error.STREAM_CLOSED, "stream %d: a frame after the client ended it", streamId);
    }
    if (skipped(streamId)) {
      throw fail(
          Http2Error.PROTOCOL_ERROR,
          "stream %d: a lower id than a stream the client opened before",
          streamId);
    }
    if (!wasReset(streamId)) {
      throw fail(
          Http2Error.STREAM_CLOSED, "stream %d: a frame after the client ended it", streamId);
    }
  }

  private Http2Exception fail(Http2Error error, String fmt, int streamId) {
    failed = true;
    return Http2Exception.connectionError(error, fmt, streamId);
  }

  private void streamAdded(int id) {
    if (!connection.remote().isValidStreamId(id)) {
      return;
    }
    if (id > lastAdded + 2) {
      if (gaps == null) {
        gaps = new int[GAPS * 2];
      }
      int slot = (gapCount++ % GAPS) * 2;
      gaps[slot] = lastAdded + 2;
      gaps[slot + 1] = id - 2;
    }
    lastAdded = Math.max(lastAdded, id);
  }

  private boolean skipped(int id) {
    for (int i = 0, n = Math.min(gapCount, GAPS) * 2; i < n; i += 2) {
      if (id >= gaps[i] && id <= gaps[i + 1]) {
        return true;
      }
    }
    return false;
  }

  private void reset(int id) {
    if (resets == null) {
      resets = new int[RESETS];
    }
    resets[resetCount++ % RESETS] = id;
  }

  private boolean wasReset(int id) {
    for (int i = 0, n = Math.min(resetCount, RESETS); i < n; i++) {
      if (resets[i] == id) {
        return true;
      }
    }
    return false;
  }
}
