package dev.replicapool.dataplane.proxy;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.config.TableObserver;
import dev.replicapool.dataplane.tls.SniKeyCertOptions;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.KeyCertOptions;
import io.vertx.core.net.ServerSSLOptions;
import io.vertx.httpproxy.HttpProxy;
import io.vertx.httpproxy.ProxyOptions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.net.ssl.KeyManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The traffic ports: the shared plain port (Host routing), the shared TLS port (SNI picks the
 * pool's certificate, then Host routing) while some pool has TLS, and one port per pool that names
 * a dedicated port (every request there goes to that pool). Follows the routing table: new ports
 * are bound before a snapshot is acknowledged (a port that cannot be bound NACKs it), certificates
 * are swapped live with {@code updateSSLOptions}, and ports no longer wanted are closed gracefully
 * after the swap, letting their in-flight requests finish.
 *
 * <p>Each port is served by {@link ProxySettings#instances()} server instances, one per event loop.
 * Each instance has its own HTTP client to the members, so a request and its upstream connection
 * stay on one event loop: with a client shared by the event loops, a request would often take a
 * connection that another event loop owns and hop threads twice.
 */
public final class ListenerManager implements TableObserver {
  private static final Logger log = LoggerFactory.getLogger(ListenerManager.class);

  /** One port and the servers (one per event loop) that share it. */
  static final class Listener {
    final String pool;
    final boolean tls;
    volatile int port;
    volatile String tlsSignature;
    final List<HttpServer> servers = new CopyOnWriteArrayList<>();
    final List<String> deployments = new CopyOnWriteArrayList<>();

    Listener(String pool, boolean tls, String tlsSignature) {
      this.pool = pool;
      this.tls = tls;
      this.tlsSignature = tlsSignature;
    }
  }

  private final Vertx vertx;
  private final ProxySettings settings;
  private final HttpClientOptions upstreamOptions;
  private final PoolOptions upstreamPool;
  private final Supplier<RoutingTable> table;
  private final ProxyObserver observer;
  private final LongSupplier nanoClock;
  private final ClientConnections clientConnections;

  /** This data plane's pseudonym in Via headers: random, so that no two processes share it. */
  private final String viaName =
      "replicapool-" + HexFormat.of().toHexDigits(new SecureRandom().nextInt());

  private Listener shared;
  private Listener sharedTls;
  private Listener pendingSharedTls;
  private final Map<Integer, Listener> dedicated = new HashMap<>();
  private final Map<Integer, Listener> pending = new HashMap<>();

  /**
   * @param upstreamOptions options of the HTTP clients to the members (one client per server
   *     instance)
   * @param upstreamPool connection pool of each of those clients
   */
  public ListenerManager(
      Vertx vertx,
      ProxySettings settings,
      HttpClientOptions upstreamOptions,
      PoolOptions upstreamPool,
      Supplier<RoutingTable> table,
      ProxyObserver observer,
      LongSupplier nanoClock) {
    this.vertx = vertx;
    this.settings = settings;
    this.upstreamOptions = upstreamOptions;
    this.upstreamPool = upstreamPool;
    this.table = table;
    this.observer = observer;
    this.nanoClock = nanoClock;
    this.clientConnections =
        new ClientConnections(
            vertx,
            settings.requestHeaderTimeoutMillis(),
            TimeUnit.SECONDS.toMillis(settings.clientIdleTimeoutSeconds()),
            settings.maxClientConnections());
  }

  /** Binds the shared plain port. */
  public Future<Void> start() {
    return bind(settings.trafficPort(), null, null, null)
        .map(
            l -> {
              synchronized (this) {
                shared = l;
              }
              log.info("traffic listening on {}:{}", settings.listenHost(), l.port);
              return null;
            });
  }

  /** Client connections open now, all traffic ports together. */
  public int openClientConnections() {
    return clientConnections.open();
  }

  /** Client connections closed because --max-client-connections were open, since start. */
  public long refusedClientConnections() {
    return clientConnections.refused();
  }

  public synchronized int trafficPort() {
    return shared == null ? -1 : shared.port;
  }

  /** The shared TLS port, or -1 while no pool has TLS. */
  public synchronized int tlsPort() {
    return sharedTls == null ? -1 : sharedTls.port;
  }

  /** Dedicated ports and their pools. */
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
      Listener l = dedicated.get(port);
      boolean wantTls = p.tls() != null;
      if (l == null && !pending.containsKey(port)) {
        KeyCertOptions kco = wantTls ? single(p.tls().keyManagerFactory()) : null;
        work.add(
            bind(port, p.name(), kco, wantTls ? p.tls().fingerprint() : null)
                .onSuccess(
                    bound -> {
                      synchronized (this) {
                        pending.put(port, bound);
                      }
                    }));
      } else if (l != null
          && l.tls
          && wantTls
          && l.pool.equals(p.name())
          && !p.tls().fingerprint().equals(l.tlsSignature)) {
        work.add(updateTls(l, single(p.tls().keyManagerFactory()), p.tls().fingerprint()));
      }
    }
    if (settings.tlsPort() >= 0 && touchesTls(change)) {
      String sig = sniSignature(next);
      if (!sig.isEmpty()) {
        KeyCertOptions kco = sni(next);
        if (sharedTls == null && pendingSharedTls == null) {
          work.add(
              bind(settings.tlsPort(), null, kco, sig)
                  .onSuccess(
                      bound -> {
                        synchronized (this) {
                          pendingSharedTls = bound;
                        }
                      }));
        } else if (sharedTls != null && !sig.equals(sharedTls.tlsSignature)) {
          work.add(updateTls(sharedTls, kco, sig));
        }
      }
    }
    return Future.all(work).mapEmpty();
  }

  @Override
  public synchronized void abort(TableObserver.Change change) {
    pending.values().forEach(this::close);
    pending.clear();
    if (pendingSharedTls != null) {
      close(pendingSharedTls);
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
        close(l);
      } else if (l.tls != (p.tls() != null)) {
        // Between plain text and TLS: the port must be bound anew.
        dedicated.remove(port);
        String pool = p.name();
        KeyCertOptions kco = p.tls() != null ? single(p.tls().keyManagerFactory()) : null;
        String sig = p.tls() != null ? p.tls().fingerprint() : null;
        close(l)
            .transform(ar -> bind(port, pool, kco, sig))
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
    if (sharedTls != null && touchesTls(change) && sniSignature(next).isEmpty()) {
      log.info("no pool has TLS any more: closing port {}", sharedTls.port);
      close(sharedTls);
      sharedTls = null;
    }
  }

  /** Stops accepting everywhere and lets in-flight requests finish within the drain time. */
  public Future<Void> shutdown() {
    List<Listener> all = new ArrayList<>();
    synchronized (this) {
      if (shared != null) {
        all.add(shared);
      }
      if (sharedTls != null) {
        all.add(sharedTls);
      }
      all.addAll(dedicated.values());
      all.addAll(pending.values());
      shared = null;
      sharedTls = null;
      dedicated.clear();
      pending.clear();
    }
    List<Future<?>> closing = new ArrayList<>();
    for (Listener l : all) {
      closing.add(close(l));
    }
    return Future.join(closing).mapEmpty();
  }

  private Future<Void> close(Listener l) {
    List<Future<?>> undeploying = new ArrayList<>();
    for (String id : l.deployments) {
      undeploying.add(vertx.undeploy(id));
    }
    return Future.join(undeploying).mapEmpty();
  }

  private Future<Void> updateTls(Listener l, KeyCertOptions kco, String signature) {
    ServerSSLOptions ssl = new ServerSSLOptions().setKeyCertOptions(kco).setSni(true);
    List<Future<?>> updates = new ArrayList<>();
    for (HttpServer s : l.servers) {
      updates.add(s.updateSSLOptions(ssl, true));
    }
    return Future.all(updates)
        .map(
            v -> {
              l.tlsSignature = signature;
              log.info("replaced TLS certificates on port {}", l.port);
              return (Void) null;
            })
        .recover(
            t ->
                Future.failedFuture(
                    "port " + l.port + ": cannot replace TLS certificates: " + t.getMessage()));
  }

  private Future<Listener> bind(int port, String pool, KeyCertOptions tls, String tlsSignature) {
    Listener l = new Listener(pool, tls != null, tlsSignature);
    HttpServerOptions options =
        new HttpServerOptions()
            .setHost(settings.listenHost())
            .setMaxInitialLineLength(settings.maxInitialLineLength())
            .setMaxHeaderSize(settings.maxHeaderSize())
            .setIdleTimeout(settings.clientIdleTimeoutSeconds())
            .setIdleTimeoutUnit(TimeUnit.SECONDS)
            .setHttp2ClearTextEnabled(settings.h2c())
            // "100 Continue" comes from the proxy itself; the member gets the body without Expect.
            .setHandle100ContinueAutomatically(true);
    if (tls != null) {
      options.setSsl(true).setSni(true).setUseAlpn(true).setKeyCertOptions(tls);
    }
    Function<HttpClient, Handler<HttpServerRequest>> handler = upstream -> handler(pool, upstream);
    String what = pool == null ? "" : "pool " + pool + ": ";
    int actual;
    try {
      actual = port == 0 ? freePort(settings.listenHost()) : port;
    } catch (java.io.IOException e) {
      return Future.failedFuture(what + "no free port: " + e.getMessage());
    }
    l.port = actual;
    // All instances bind the same explicit port: Vert.x then shares it among their event loops.
    return vertx
        .deployVerticle(
            () ->
                new ListenerVerticle(
                    options,
                    actual,
                    upstreamOptions,
                    upstreamPool,
                    handler,
                    clientConnections,
                    l,
                    settings.drainMillis()),
            new DeploymentOptions().setInstances(Math.max(1, settings.instances())))
        .map(
            id -> {
              l.deployments.add(id);
              return l;
            })
        .recover(
            t ->
                Future.failedFuture(
                    what + "cannot listen on port " + actual + ": " + t.getMessage()));
  }

  private static int freePort(String host) throws java.io.IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket()) {
      s.bind(new java.net.InetSocketAddress(host, 0));
      return s.getLocalPort();
    }
  }

  private Handler<HttpServerRequest> handler(String pool, HttpClient upstream) {
    MemberOriginProvider origin = new MemberOriginProvider(settings, observer, nanoClock);
    HttpProxy proxy =
        HttpProxy.reverseProxy(new ProxyOptions().setSupportWebSocket(false), upstream)
            .origin(origin);
    proxy.addInterceptor(
        new RoutingInterceptor(
            table, pool, origin, observer, nanoClock, settings.maxBodyBytes(), viaName));
    TrafficHandler traffic =
        new TrafficHandler(proxy, settings.maxBodyBytes(), observer, nanoClock);
    return req -> {
      if (clientConnections.request(req, RequestChecks.mustClose(req))) {
        traffic.handle(req);
      }
    };
  }

  private static KeyCertOptions single(KeyManagerFactory kmf) {
    return new SniKeyCertOptions(name -> kmf, kmf);
  }

  /**
   * Whether the change adds, alters or removes a pool with TLS. Only then can the shared TLS port's
   * certificates change: the rest of the work here is per TLS pool, and a table of 1,000 pools must
   * not pay for it on every snapshot.
   */
  private static boolean touchesTls(TableObserver.Change change) {
    for (String name : change.pools()) {
      PoolRuntime before = change.previous().pool(name);
      PoolRuntime after = change.next().pool(name);
      if ((before != null && before.tls() != null) || (after != null && after.tls() != null)) {
        return true;
      }
    }
    return false;
  }

  /** Per server name the certificate of the pool its Host routing picks; else the first pool's. */
  private static KeyCertOptions sni(RoutingTable t) {
    KeyManagerFactory fallback = null;
    for (PoolRuntime p : t.sortedPools().values()) {
      if (p.tls() != null && !p.hosts().isEmpty()) {
        fallback = p.tls().keyManagerFactory();
        break;
      }
    }
    return new SniKeyCertOptions(
        name -> {
          PoolRuntime p = t.poolForHost(name);
          return p == null || p.tls() == null ? null : p.tls().keyManagerFactory();
        },
        fallback);
  }

  private static String sniSignature(RoutingTable t) {
    StringBuilder sb = new StringBuilder();
    for (PoolRuntime p : t.sortedPools().values()) {
      if (p.tls() != null && !p.hosts().isEmpty()) {
        sb.append(p.name()).append(p.hosts()).append(p.tls().fingerprint()).append(';');
      }
    }
    return sb.toString();
  }

  /**
   * One server instance of a listener, on the event loop Vert.x gives this verticle, with its own
   * client to the members (created in {@link #start}, so Vert.x closes it when the verticle is
   * undeployed, after the server's drain).
   */
  static final class ListenerVerticle extends VerticleBase {
    private final HttpServerOptions options;
    private final int port;
    private final HttpClientOptions upstreamOptions;
    private final PoolOptions upstreamPool;
    private final Function<HttpClient, Handler<HttpServerRequest>> handler;
    private final ClientConnections clientConnections;
    private final Listener listener;
    private final long drainMillis;
    private HttpServer server;

    ListenerVerticle(
        HttpServerOptions options,
        int port,
        HttpClientOptions upstreamOptions,
        PoolOptions upstreamPool,
        Function<HttpClient, Handler<HttpServerRequest>> handler,
        ClientConnections clientConnections,
        Listener listener,
        long drainMillis) {
      this.options = new HttpServerOptions(options).setPort(port);
      this.port = port;
      this.upstreamOptions = upstreamOptions;
      this.upstreamPool = upstreamPool;
      this.handler = Objects.requireNonNull(handler);
      this.clientConnections = clientConnections;
      this.listener = listener;
      this.drainMillis = drainMillis;
    }

    @Override
    public Future<?> start() {
      HttpClient upstream =
          vertx
              .httpClientBuilder()
              .with(upstreamOptions)
              .with(upstreamPool)
              // A member that resets a connection fails the attempt on it (retried, counted,
              // ejected): without a handler Vert.x also logs every reset at ERROR.
              .withConnectHandler(
                  c -> c.exceptionHandler(e -> log.debug("member connection: {}", e.toString())))
              .build();
      server = vertx.createHttpServer(options).requestHandler(handler.apply(upstream));
      server.connectionHandler(clientConnections::connected);
      return server.listen().onSuccess(listener.servers::add);
    }

    @Override
    public Future<?> stop() {
      listener.servers.remove(server);
      return server.shutdown(drainMillis, TimeUnit.MILLISECONDS);
    }
  }
}
