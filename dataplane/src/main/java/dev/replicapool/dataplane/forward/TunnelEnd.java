package dev.replicapool.dataplane.forward;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/** The member's end of an upgrade tunnel: what it sends goes to the client unchanged. */
final class TunnelEnd extends ChannelInboundHandlerAdapter {
  private final Channel client;
  private final Runnable onClose;

  TunnelEnd(Channel client, Runnable onClose) {
    this.client = client;
    this.onClose = onClose;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    client.write(msg, client.voidPromise());
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    client.flush();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    client.config().setAutoRead(ctx.channel().isWritable());
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    onClose.run();
    client.close();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }
}
