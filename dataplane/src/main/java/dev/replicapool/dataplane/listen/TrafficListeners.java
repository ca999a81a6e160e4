package dev.replicapool.dataplane.listen;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.config.TableObserver;
import dev.replicapool.dataplane.forward.Forwarding;
import dev.replicapool.dataplane.forward.Http1Connection;
import dev.replicapool.dataplane.proxy.ProxySettings;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The traffic ports: the shared plain port (Host routing), the shared TLS port (SNI picks the
 * pool's certificate, then Host routing) while some pool has TLS, and one port per pool that names
 * a dedicated port. Follows the routing table: new ports are bound before a snapshot is
 * acknowledged (a port that cannot be bound NACKs it), and ports no longer wanted are closed after
 * the swap, their connections drained. Certificates need no rebinding: each handshake reads the
 * live table.
 *
 * <p>Each port is served by {@link ProxySettings#instances()} event loops of the Vert.x instance:
 * with the native transport one server socket per loop (SO_REUSEPORT, the kernel spreads
 * connections), else one socket whose connections are spread over the loops. A connection and its
 * member connections stay on one loop.
 *
 * <p>Why one class of this size: the three kinds of port follow the same table swap (prepare,
 * abort, installed) and share the bind and drain code.
 */
public final class TrafficListeners implements TableObserver {
  private static final Logger log = LoggerFactory.getLogger(TrafficListeners.class);

  private final VertxInternal vertx;
  private final ProxySettings settings;
  private final Supplier<RoutingTable> table;
  private final Forwarding fw;
  private final ClientGate gate;
  private final List<EventLoop> loops = new ArrayList<>();
  private final boolean reusePort;

  private Listener shared;
  private Listener sharedTls;
  private Listener pendingSharedTls;
  private final Map<Integer, Listener> dedicated = new HashMap<>();
  private final Map<Integer, Listener> pending = new HashMap<>();

  public TrafficListeners(
      Vertx vertx, ProxySettings settings, Supplier<RoutingTable> table, Forwarding fw) {
    this.vertx = (VertxInternal) vertx;
    this.settings = settings;
    this.table = table;
    this.fw = fw;
    this.gate = new ClientGate(settings.maxClientConnections());
    EventLoopGroup group = this.vertx.nettyEventLoopGroup();
    for (int i = 0; i < Math.max(1, settings.instances()); i++) {
      EventLoop l = group.next();
      if (!loops.contains(l)) {
        loops.add(l);
      }
    }
    this.reusePort = epoll(serverFactory());
  }

  /** Binds the shared plain port. */
  public Future<Void> start() {
    return bind(settings.trafficPort(), null, false)
        .map(
            l -> {
              synchronized (this) {
                shared = l;
              }
              log.info(
                  "traffic listening on {}:{} ({} event loop(s), {})",
                  settings.listenHost(),
                  l.port,
                  loops.size(),
                  reusePort ? "epoll, SO_REUSEPORT" : "one accepting socket");
              return null;
            });
  }

  public int openClientConnections() {
    return gate.open();
  }

  public long refusedClientConnections() {
    return gate.refused();
  }

  public synchronized int trafficPort() {
    return shared == null ? -1 : shared.port;
  }

  public synchronized int tlsPort() {
    return sharedTls == null ? -1 : sharedTls.port;
  }

  public synchronized Map<Integer, String> dedicatedPorts() {
    Map<Integer, String> m = new HashMap<>();
    dedicated.forEach((p, l) -> m.put(p, l.pool));
    return m;
  }

  @Override
  public synchronized Future<Void> prepare(TableObserver.Change change) {
    RoutingTable next = change.next();
    List<Future<?>> work = new ArrayList<>();
    for (Map.Entry<Integer, PoolRuntime> e : next.ports().entrySet()) {
      int port = e.getKey();
      PoolRuntime p = e.getValue();
      if (!dedicated.containsKey(port) && !pending.containsKey(port)) {
        work.add(
            bind(port, p.name(), p.tls() != null)
                .onSuccess(
                    bound -> {
                      synchronized (this) {
                        pending.put(port, bound);
                      }
                    }));
      }
    }
    if (settings.tlsPort() >= 0
        && sharedTls == null
        && pendingSharedTls == null
        && anySharedTls(next)) {
      work.add(
          bind(settings.tlsPort(), null, true)
              .onSuccess(
                  bound -> {
                    synchronized (this) {
                      pendingSharedTls = bound;
                    }
                  }));
    }
    return Future.all(work).mapEmpty();
  }

  @Override
  public synchronized void abort(TableObserver.Change change) {
    pending.values().forEach(this::closeNow);
    pending.clear();
    if (pendingSharedTls != null) {
      closeNow(pendingSharedTls);
      pendingSharedTls = null;
    }
  }

  @Override
  public synchronized void installed(TableObserver.Change change) {
    RoutingTable next = change.next();
    dedicated.putAll(pending);
    pending.clear();
    if (pendingSharedTls != null) {
      sharedTls = pendingSharedTls;
      pendingSharedTls = null;
      log.info("TLS traffic listening on {}:{}", settings.listenHost(), sharedTls.port);
    }
    for (Integer port : new ArrayList<>(dedicated.keySet())) {
      Listener l = dedicated.get(port);
      PoolRuntime p = next.poolForPort(port);
      if (p == null || !p.name().equals(l.pool)) {
        log.info("closing port {} of pool {}", port, l.pool);
        dedicated.remove(port);
        drain(l);
      } else if (l.tls != (p.tls() != null)) {
        // Between plain text and TLS: the port must be bound anew.
        dedicated.remove(port);
        String pool = p.name();
        boolean tls = p.tls() != null;
        drain(l)
            .transform(ar -> bind(port, pool, tls))
            .onComplete(
                ar -> {
                  if (ar.succeeded()) {
                    synchronized (this) {
                      dedicated.put(port, ar.result());
                    }
                  } else {
                    log.error("cannot rebind port {} of pool {}: {}", port, pool, ar.cause());
                  }
                });
      }
    }
    if (sharedTls != null && !anySharedTls(next)) {
      log.info("no pool has TLS any more: closing port {}", sharedTls.port);
      drain(sharedTls);
      sharedTls = null;
    }
    closeTunnelsOfLeavingMembers(change);
  }

  /**
   * Tunnels to members that left a changed pool or are no longer routable close after the drain.
   */
  private void closeTunnelsOfLeavingMembers(TableObserver.Change change) {
    if (fw.tunnels().count() == 0) {
      return;
    }
    java.util.Set<dev.replicapool.dataplane.routing.Endpoint> live = new java.util.HashSet<>();
    for (PoolRuntime p : change.next().pools().values()) {
      for (var e : p.router().endpoints()) {
        if (e.admitted()) {
          live.add(e);
        }
      }
    }
    fw.tunnels().closeAfter(e -> !live.contains(e), settings.drainMillis());
  }

  private static boolean anySharedTls(RoutingTable t) {
    for (PoolRuntime p : t.pools().values()) {
      if (p.tls() != null && !p.hosts().isEmpty()) {
        return true;
      }
    }
    return false;
  }

  /** Stops accepting everywhere and lets in-flight requests finish within the drain time. */
  public Future<Void> shutdown() {
    List<Listener> all = new ArrayList<>();
    synchronized (this) {
      for (Listener l : new Listener[] {shared, sharedTls}) {
        if (l != null) {
          all.add(l);
        }
      }
      all.addAll(dedicated.values());
      all.addAll(pending.values());
      shared = null;
      sharedTls = null;
      dedicated.clear();
      pending.clear();
    }
    fw.drain();
    List<Future<?>> closing = new ArrayList<>();
    for (Listener l : all) {
      closing.add(drain(l));
    }
    return Future.join(closing).mapEmpty();
  }

  private void closeNow(Listener l) {
    l.servers.forEach(Channel::close);
    l.connections.close();
  }

  /**
   * Stops accepting, closes idle connections, and lets the others finish their current request
   * (they close after it), up to the drain time.
   */
  private Future<Void> drain(Listener l) {
    l.servers.forEach(Channel::close);
    for (Channel c : l.connections) {
      c.eventLoop().execute(() -> Http1Connection.drain(c));
    }
    Promise<Void> done = Promise.promise();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.drainMillis());
    vertx.setPeriodic(
        20,
        id -> {
          if (l.connections.isEmpty() || System.nanoTime() - deadline > 0) {
            vertx.cancelTimer(id);
            l.connections.close();
            done.tryComplete();
          }
        });
    return done.future();
  }

  private Future<Listener> bind(int port, String pool, boolean tls) {
    Listener l = new Listener(pool, tls);
    String what = pool == null ? "" : "pool " + pool + ": ";
    int actual;
    try {
      actual = port == 0 ? freePort(settings.listenHost()) : port;
    } catch (java.io.IOException e) {
      return Future.failedFuture(what + "no free port: " + e.getMessage());
    }
    l.port = actual;
    ConnectionSetup init =
        new ConnectionSetup(fw, gate, table, pool, tls, settings.h2c() && !tls, l);
    List<ChannelFuture> binds = new ArrayList<>();
    if (reusePort) {
      for (EventLoop loop : loops) {
        binds.add(
            bootstrap(loop, loop, init)
                .option(EpollChannelOption.SO_REUSEPORT, true)
                .bind(settings.listenHost(), actual));
      }
    } else {
      binds.add(
          bootstrap(vertx.acceptorEventLoopGroup(), vertx.nettyEventLoopGroup(), init)
              .bind(settings.listenHost(), actual));
    }
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
                  closeNow(l);
                  result.fail(
                      what + "cannot listen on port " + actual + ": " + failure[0].getMessage());
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
  private io.netty.channel.ChannelFactory<ServerChannel> serverFactory() {
    return (io.netty.channel.ChannelFactory<ServerChannel>)
        vertx.transport().serverChannelFactory(false);
  }

  private static int freePort(String host) throws java.io.IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket()) {
      s.bind(new InetSocketAddress(host, 0));
      return s.getLocalPort();
    }
  }

  /** Whether the transport is native epoll, which lets every loop bind the port (SO_REUSEPORT). */
  private static boolean epoll(io.netty.channel.ChannelFactory<?> f) {
    Channel c = f.newChannel();
    boolean epoll = c instanceof EpollServerSocketChannel;
    c.unsafe().closeForcibly();
    return epoll;
  }
}
