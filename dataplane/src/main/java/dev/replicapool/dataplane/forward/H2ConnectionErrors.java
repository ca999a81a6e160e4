package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.proxy.ProxyObserver;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2Exception;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of a client's HTTP/2 connection: what the frame codec found wrong with the
 * client's frames (a connection error: the codec sends GOAWAY and closes the connection next) and
 * the connection's I/O errors (quietly) end here, instead of reaching the pipeline's tail, which
 * logs each with its stack trace. Malformed client input, however frequent, costs a counter ({@code
 * replicapool_client_protocol_errors_total}) and at most one log line a minute.
 */
@ChannelHandler.Sharable
final class H2ConnectionErrors extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(H2ConnectionErrors.class);

  private final ProxyObserver observer;
  private final LogLimit logLimit;

  H2ConnectionErrors(ProxyObserver observer, LongSupplier clock) {
    this.observer = observer;
    this.logLimit = new LogLimit(clock, TimeUnit.MINUTES.toNanos(1));
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof IOException) {
      return; // the client went away (reset by peer): nothing to report
    }
    String error = cause instanceof Http2Exception e ? e.error().name() : "other";
    observer.clientProtocolError("h2", error);
    long unlogged = logLimit.tryLog();
    if (unlogged >= 0) {
      log.info(
          "HTTP/2 client {}: {} {} (one line a minute at most; {} more since the last one)",
          ctx.channel().remoteAddress(),
          error,
          cause.getMessage(),
          unlogged);
    }
    // Not closed here: the codec fires this before its GOAWAY, which must go out first; it
    // closes the connection after.
  }
}
