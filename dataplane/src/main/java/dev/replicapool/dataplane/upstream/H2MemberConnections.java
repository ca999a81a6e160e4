package dev.replicapool.dataplane.upstream;

import static io.netty.handler.codec.http2.Http2CodecUtil.DEFAULT_WINDOW_SIZE;

import dev.replicapool.dataplane.config.UpstreamTls;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamChannelBootstrap;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The HTTP/2 connections of one event loop to members that speak it (h2c): one multiplexed
 * connection per member, on which every request of this loop opens its own stream, so that
 * requests, not connections, are balanced. A connection that closes or is told GOAWAY is replaced
 * by a new one for the next stream.
 *
 * <p>The connection's receive window is {@link #CONNECTION_WINDOW}, each stream's HTTP/2's default
 * (64 KiB). A stream whose client takes nothing (a zero window, a slow reader) stops being read,
 * and Netty returns a stream's bytes to both windows only once they are read: with the connection
 * window at its default of 64 KiB too, one such stream would hold the whole connection, and every
 * other client's stream on it, until its client's idle timeout. With it 1,024 streams wide, that
 * takes 1,024 stalled streams at once, each holding at most its own 64 KiB here.
 */
public final class H2MemberConnections {
  /** Told when a stream to the member is open, or could not be opened (nothing was sent). */
  public interface StreamListener {
    void opened(Http2StreamChannel stream);

    void failed(Throwable cause);
  }

  /** The connection-level receive window, 1,024 default stream windows. */
  static final int CONNECTION_WINDOW = 1024 * DEFAULT_WINDOW_SIZE;

  private final Bootstrap bootstrap;
  private final Map<String, Member> members = new HashMap<>();

  private static final class Member {
    final String address;
    Channel channel;
    boolean connected;
    boolean goingAway;
    List<Runnable> waiting = new ArrayList<>();

    Member(String address) {
      this.address = address;
    }
  }

  public H2MemberConnections(EventLoop loop, MemberConnections.Dialer dialer) {
    this.bootstrap = dialer.bootstrap(loop);
  }

  /** Opens a stream to the member, with {@code handler} as its pipeline. */
  public void openStream(
      String address,
      String host,
      int port,
      UpstreamTls tls,
      ChannelHandler handler,
      StreamListener listener) {
    Member m = members.get(address);
    if (m == null || m.goingAway || (m.channel != null && !m.channel.isActive() && m.connected)) {
      m = connect(address, host, port, tls);
    }
    Member member = m;
    Runnable open =
        () -> {
          if (member.channel == null || !member.channel.isActive()) {
            listener.failed(new IllegalStateException("member " + address + " is not connected"));
            return;
          }
          new Http2StreamChannelBootstrap(member.channel)
              .handler(handler)
              .open()
              .addListener(
                  f -> {
                    if (f.isSuccess()) {
                      listener.opened((Http2StreamChannel) f.getNow());
                    } else {
                      listener.failed(f.cause());
                    }
                  });
        };
    if (member.connected) {
      open.run();
    } else {
      member.waiting.add(open); // run when the connect ends, failed or not (see connect)
    }
  }

  private Member connect(String address, String host, int port, UpstreamTls tls) {
    Member m = new Member(address);
    SslHandler[] ssl = {null};
    members.put(address, m);
    ChannelFuture f =
        bootstrap
            .clone()
            .handler(pipeline(m, host, port, tls, ssl))
            .connect(InetSocketAddress.createUnresolved(host, port));
    m.channel = f.channel();
    f.addListener(x -> connected(f, m, ssl[0]));
    f.channel().closeFuture().addListener(x -> members.remove(address, m));
    return m;
  }

  /** The connection's pipeline: TLS when the pool asks for it, HTTP/2 frames, one stream each. */
  private static ChannelInitializer<Channel> pipeline(
      Member m, String host, int port, UpstreamTls tls, SslHandler[] ssl) {
    return new ChannelInitializer<Channel>() {
      @Override
      protected void initChannel(Channel ch) {
        if (tls != null) {
          ssl[0] = tls.handler(ch.alloc(), host, port, true);
          ch.pipeline().addLast("tls", ssl[0]);
        }
        ch.pipeline()
            // Every client stream forwarded flushes this connection, while the client's connection
            // is read: one write for the streams of one read, not one each.
            .addLast(
                new FlushConsolidationHandler(
                    FlushConsolidationHandler.DEFAULT_EXPLICIT_FLUSH_AFTER_FLUSHES, true))
            .addLast(
                Http2FrameCodecBuilder.forClient()
                    .initialSettings(Http2Settings.defaultSettings().pushEnabled(false))
                    // A member resets the streams whose deadline (grpc-timeout) passed: a client
                    // with short deadlines makes it reset most of them. Netty's limit (200 in 30 s)
                    // then closed the member connection under every call on it.
                    .decoderEnforceMaxRstFramesPerWindow(0, 0)
                    .encoderEnforceMaxRstFramesPerWindow(0, 0)
                    .build())
            .addLast(new Http2MultiplexHandler(new RefusePush()))
            .addLast(new GoAwayWatch(m));
      }
    };
  }

  /** The connect finished: with TLS the connection is ready once the handshake is. */
  private void connected(ChannelFuture f, Member m, SslHandler ssl) {
    if (f.isSuccess() && ssl != null) {
      ssl.handshakeFuture()
          .addListener(
              h -> {
                if (!h.isSuccess()) {
                  f.channel().close();
                }
                ready(m, h.isSuccess());
              });
    } else {
      ready(m, f.isSuccess());
    }
  }

  /** The connection is usable (or failed): the streams waiting for it open now (or fail). */
  private void ready(Member m, boolean ok) {
    Channel ch = m.channel;
    List<Runnable> w = m.waiting;
    m.waiting = new ArrayList<>();
    if (ok) {
      m.connected = true;
      // After the codec's channelActive, which sends the connection preface: the connect
      // promise completes just before it. The window grows first, then the waiting streams open.
      ch.eventLoop()
          .execute(
              () -> {
                ch.write(
                    new DefaultHttp2WindowUpdateFrame(CONNECTION_WINDOW - DEFAULT_WINDOW_SIZE));
                w.forEach(Runnable::run);
                ch.flush();
              });
    } else {
      members.remove(m.address, m);
      m.channel = null;
      for (Runnable r : w) {
        r.run(); // each fails: not connected
      }
    }
  }

  /** Server push is off; a stream the member opens anyway is closed. */
  private static final class RefusePush extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRegistered(ChannelHandlerContext ctx) {
      ctx.close();
    }

    @Override
    public boolean isSharable() {
      return true;
    }
  }

  /** After GOAWAY the connection takes no new streams: the next request opens another. */
  private static final class GoAwayWatch extends ChannelInboundHandlerAdapter {
    private final Member member;

    GoAwayWatch(Member member) {
      this.member = member;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof Http2GoAwayFrame) {
        member.goingAway = true;
      }
      ReferenceCountUtil.release(msg);
    }
  }
}
