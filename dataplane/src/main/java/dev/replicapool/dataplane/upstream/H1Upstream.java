package dev.replicapool.dataplane.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;

/**
 * One HTTP/1.1 connection to a member, as the last handler of its pipeline: hands what the member
 * sends to the exchange that uses the connection now, and takes itself out of its pool when the
 * member closes it while idle. Touched on its event loop only.
 */
public final class H1Upstream extends ChannelInboundHandlerAdapter {
  /** The user of a connection: one request at a time. */
  public interface User {
    /** Bytes from the member; the user releases them. */
    void memberBytes(ByteBuf buf);

    /** A flush point: the member has nothing more to read now. */
    default void memberReadComplete() {}

    /** The connection closed (by the member, the network or the proxy). */
    void memberClosed();

    /** The client side can take more, or not: the member's reads follow it. */
    default void memberWritabilityChanged(boolean writable) {}
  }

  /**
   * Where a pooled connection goes back to ({@link MemberConnections}), as far as it needs to know.
   */
  interface Home {
    /** The connection can carry the next request. */
    void giveBack(H1Upstream c);

    /** The connection closed. */
    void closed(H1Upstream c);
  }

  /** Null for a connection of its own ({@link #oneShot}). */
  private final Home pool;

  final Object key;
  private Channel channel;
  private User user;
  long idleSinceNanos;
  long busySinceNanos;
  boolean pooled;
  private boolean unprocessed;

  H1Upstream(Home pool, Object key) {
    this.pool = pool;
    this.key = key;
  }

  /**
   * An exchange of its own on an HTTP/2 stream to a member (see {@link H1OverH2}): not pooled,
   * closed when its request is done.
   */
  public static H1Upstream oneShot() {
    return new H1Upstream(null, null);
  }

  public Channel channel() {
    return channel;
  }

  /**
   * Whether the member said it did not process the request (an HTTP/2 stream it refused, or left
   * out by its GOAWAY; see {@link H1OverH2}): then another member may have it, nothing done.
   */
  public boolean unprocessed() {
    return unprocessed;
  }

  void markUnprocessed() {
    unprocessed = true;
  }

  public void attach(User u) {
    this.user = u;
    pooled = false;
    busySinceNanos = System.nanoTime();
  }

  /** The user is done and the connection can carry the next request. */
  public void release() {
    user = null;
    if (pool == null) {
      channel.close();
    } else if (channel.isActive()) {
      pool.giveBack(this);
    }
  }

  /** The user is done and the connection must not be reused. */
  public void discard() {
    user = null;
    channel.close();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.channel = ctx.channel();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    User u = user;
    if (u == null) {
      // Nothing was asked: a member that talks out of turn cannot be trusted with the next request.
      ReferenceCountUtil.release(msg);
      ctx.close();
      return;
    }
    u.memberBytes((ByteBuf) msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    User u = user;
    if (u != null) {
      u.memberReadComplete();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (pool != null) {
      pool.closed(this);
    }
    User u = user;
    user = null;
    if (u != null) {
      u.memberClosed();
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close(); // a reset or the like: channelInactive tells the user
  }
}
