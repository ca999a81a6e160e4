package dev.replicapool.dataplane.forward;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * Netty's frame codec for a client's HTTP/2 connection, with two floods it lets through closed (and
 * a third, PINGs and SETTINGS sent faster than their acknowledgements are paid for, closed by
 * {@link H2StreamStateGuard}, for which this codec tells the {@link H2ControlFrameBudget} of every
 * HEADERS and DATA it sends):
 *
 * <ul>
 *   <li>a client that floods PING or SETTINGS and never reads the acknowledgements is closed by
 *       Netty's encoder (ENHANCE_YOUR_CALM), which tells the pipeline nothing of it: it reaches
 *       {@link H2ConnectionErrors} here, to be counted like the client's other errors;
 *   <li>a header block past the limit (an HPACK bomb: one large field in the dynamic table, then
 *       streams that name it thousands of times) gets a 431 and a reset, cheaply, and Netty would
 *       take them forever: past {@link #MAX_OVERSIZED_HEADER_BLOCKS} on one connection it is closed
 *       with ENHANCE_YOUR_CALM.
 * </ul>
 */
final class H2ServerCodec extends Http2FrameCodec {
  /** A client whose header blocks outgrow the limit this often is attacking, not mistaken. */
  static final int MAX_OVERSIZED_HEADER_BLOCKS = 16;

  private final H2StreamStateGuard guard;
  private final H2ControlFrameBudget controlFrames;
  private final H2ControlFrameBudget prematureResets;
  private int oversizedHeaderBlocks;

  H2ServerCodec(
      Http2ConnectionEncoder encoder,
      H2StreamStateGuard decoder,
      H2ControlFrameBudget controlFrames,
      H2ControlFrameBudget prematureResets,
      Http2Settings settings,
      boolean decoupleCloseAndGoAway,
      boolean flushPreface) {
    super(encoder, decoder, settings, decoupleCloseAndGoAway, flushPreface);
    this.guard = decoder;
    this.controlFrames = controlFrames;
    this.prematureResets = prematureResets;
  }

  /**
   * Netty's server codec builder for this codec, with an {@link H2StreamStateGuard} in front of its
   * decoder.
   */
  static Http2FrameCodecBuilder builder() {
    return new Http2FrameCodecBuilder() {
      {
        server(true);
        gracefulShutdownTimeoutMillis(0); // as Http2FrameCodecBuilder.forServer()
        // Rapid reset: a stream reset in the read that opened it reaches no member
        // (H2StreamRouter), and a connection past H2ControlFrameBudget.prematureResets is closed.
        // Netty's count of every reset (200 in 30 s) also closed gRPC clients whose deadlines
        // cancel most of their calls.
        decoderEnforceMaxRstFramesPerWindow(0, 0);
        // Netty 4.2 also closes a connection after it sent 200 RST_STREAM in 30 s (against
        // "MadeYouReset"): a member resetting calls whose deadline passed made it send them and
        // closed the client's connection. A stream reset in its first read reaches no member
        // anyway (H2StreamRouter), and a later reset cancels the member's request.
        encoderEnforceMaxRstFramesPerWindow(0, 0);
      }

      @Override
      protected Http2FrameCodec build(
          Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
        // The advertised stream limit holds from the first frame: Netty applies it only once the
        // client acknowledged the SETTINGS, and a client that never does could open any number.
        Long maxStreams = settings.maxConcurrentStreams();
        if (maxStreams != null) {
          decoder.connection().remote().maxActiveStreams((int) Math.min(maxStreams, 1 << 30));
        }
        H2ControlFrameBudget controlFrames = H2ControlFrameBudget.controlFrames(System::nanoTime);
        H2ControlFrameBudget resets = H2ControlFrameBudget.prematureResets(System::nanoTime);
        Http2FrameCodec codec =
            new H2ServerCodec(
                encoder,
                new H2StreamStateGuard(decoder, controlFrames, resets),
                controlFrames,
                resets,
                settings,
                decoupleCloseAndGoAway(),
                flushPreface());
        codec.gracefulShutdownTimeoutMillis(gracefulShutdownTimeoutMillis());
        return codec;
      }
    };
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof Http2DataFrame || msg instanceof Http2HeadersFrame) {
      controlFrames.answered();
      prematureResets.answered();
    }
    super.write(ctx, msg, promise);
  }

  @Override
  protected void onConnectionError(
      ChannelHandlerContext ctx, boolean outbound, Throwable cause, Http2Exception http2Ex) {
    if (outbound && cause instanceof Http2Exception) {
      ctx.fireExceptionCaught(cause); // Netty fires only the inbound ones
    }
    super.onConnectionError(ctx, outbound, cause, http2Ex);
  }

  @Override
  protected void handleServerHeaderDecodeSizeError(ChannelHandlerContext ctx, Http2Stream stream) {
    oversizedHeaderBlocks++;
    if (oversizedHeaderBlocks > MAX_OVERSIZED_HEADER_BLOCKS) {
      guard.condemn(); // the rest of the read is the same attack: skipped, not decoded
      onError(
          ctx,
          false,
          Http2Exception.connectionError(
              Http2Error.ENHANCE_YOUR_CALM,
              "%d header blocks past the size limit on one connection",
              oversizedHeaderBlocks));
      return;
    }
    super.handleServerHeaderDecodeSizeError(ctx, stream);
  }
}
