package dev.replicapool.dataplane.listen;

import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.forward.Forwarding;
import dev.replicapool.dataplane.proxy.ProxySettings;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.internal.VertxInternal;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Binds one traffic port on {@link ProxySettings#instances()} event loops of the Vert.x instance:
 * with the native transport one server socket per loop (SO_REUSEPORT, the kernel spreads
 * connections), else one socket whose connections are spread over the loops. A port that does not
 * bind everywhere is closed again and its bind fails with the reason. {@link TrafficListeners}
 * binds every kind of port with it.
 */
final class PortBinder {
  private final VertxInternal vertx;
  private final ProxySettings settings;
  private final Supplier<RoutingTable> table;
  private final Forwarding fw;
  private final ClientGate gate;
  private final List<EventLoop> loops = new ArrayList<>();
  private final boolean reusePort;

  PortBinder(
      VertxInternal vertx,
      ProxySettings settings,
      Supplier<RoutingTable> table,
      Forwarding fw,
      ClientGate gate) {
    this.vertx = vertx;
    this.settings = settings;
    this.table = table;
    this.fw = fw;
    this.gate = gate;
    EventLoopGroup group = vertx.nettyEventLoopGroup();
    for (int i = 0; i < Math.max(1, settings.instances()); i++) {
      EventLoop l = group.next();
      if (!loops.contains(l)) {
        loops.add(l);
      }
    }
    this.reusePort = epoll(serverFactory());
  }

  /** How many event loops serve each port. */
  int loopCount() {
    return loops.size();
  }

  /** Whether each loop has a server socket of its own (SO_REUSEPORT). */
  boolean reusePort() {
    return reusePort;
  }

  /**
   * Binds a port.
   *
   * @param port the port; 0 picks a free one
   * @param pool the pool of a dedicated port, null for a shared one
   * @param tls whether the port speaks TLS
   */
  Future<Listener> bind(int port, String pool, boolean tls) {
    Listener l = new Listener(pool, tls);
    String what = pool == null ? "" : "pool " + pool + ": ";
    try {
      l.port = port == 0 ? freePort(settings.listenHost()) : port;
    } catch (IOException e) {
      return Future.failedFuture(what + "no free port: " + e.getMessage());
    }
    ConnectionSetup init =
        new ConnectionSetup(fw, gate, table, pool, tls, settings.h2c() && !tls, l);
    return whenAllBound(l, serverChannels(l.port, init), what);
  }

  /** The binds of a port's server sockets: one per loop with SO_REUSEPORT, else one. */
  private List<ChannelFuture> serverChannels(int port, ConnectionSetup init) {
    List<ChannelFuture> binds = new ArrayList<>();
    if (reusePort) {
      for (EventLoop loop : loops) {
        binds.add(
            bootstrap(loop, loop, init)
                .option(EpollChannelOption.SO_REUSEPORT, true)
                .bind(settings.listenHost(), port));
      }
    } else {
      binds.add(
          bootstrap(vertx.acceptorEventLoopGroup(), vertx.nettyEventLoopGroup(), init)
              .bind(settings.listenHost(), port));
    }
    return binds;
  }

  /** The listener once every bind succeeded; else, its sockets closed, the first failure. */
  private Future<Listener> whenAllBound(Listener l, List<ChannelFuture> binds, String what) {
    Promise<Listener> result = Promise.promise();
    int[] left = {binds.size()};
    Throwable[] failure = {null};
    for (ChannelFuture f : binds) {
      f.addListener(
          x -> {
            synchronized (left) {
              if (f.isSuccess()) {
                l.servers.add(f.channel());
              } else if (failure[0] == null) {
                failure[0] = f.cause();
              }
              if (--left[0] == 0) {
                if (failure[0] != null) {
                  l.closeNow();
                  result.fail(
                      what + "cannot listen on port " + l.port + ": " + failure[0].getMessage());
                } else {
                  result.complete(l);
                }
              }
            }
          });
    }
    return result.future();
  }

  private ServerBootstrap bootstrap(
      EventLoopGroup boss, EventLoopGroup workers, ConnectionSetup init) {
    return new ServerBootstrap()
        .group(boss, workers)
        .channelFactory(serverFactory())
        .option(ChannelOption.SO_BACKLOG, 1024)
        .option(ChannelOption.SO_REUSEADDR, true)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.SO_KEEPALIVE, true)
        // A client that half-closes after its requests (nc -N, scripts) still gets its answers.
        .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
        .childHandler(init);
  }

  @SuppressWarnings("unchecked")
  private ChannelFactory<ServerChannel> serverFactory() {
    return (ChannelFactory<ServerChannel>) vertx.transport().serverChannelFactory(false);
  }

  private static int freePort(String host) throws IOException {
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress(host, 0));
      return s.getLocalPort();
    }
  }

  /** Whether the transport is native epoll, which lets every loop bind the port (SO_REUSEPORT). */
  private static boolean epoll(ChannelFactory<?> f) {
    Channel c = f.newChannel();
    boolean epoll = c instanceof EpollServerSocketChannel;
    c.unsafe().closeForcibly();
    return epoll;
  }
}
