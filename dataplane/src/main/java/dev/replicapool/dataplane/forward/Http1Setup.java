package dev.replicapool.dataplane.forward;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;

/**
 * What the listener decides for each client connection an {@link Http1Connection} reads: the pool
 * its port is dedicated to (null: routed by Host), whether it is TLS, whether to look for the
 * HTTP/2 preface first and where to hand such a connection, and whether the requests come from an
 * HTTP/2 client through {@link H2StreamRouter}.
 */
public record Http1Setup(
    String dedicatedPool, boolean tls, boolean h2cPreface, H2Switch h2, boolean overH2) {

  /** Turns a connection into HTTP/2 (prior knowledge), handing it the bytes read so far. */
  public interface H2Switch {
    void switchToH2(ChannelHandlerContext ctx, ByteBuf received);
  }
}
