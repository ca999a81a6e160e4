package dev.replicapool.dataplane.listen;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.config.TableObserver;
import dev.replicapool.dataplane.forward.Forwarding;
import dev.replicapool.dataplane.forward.Http1Connection;
import dev.replicapool.dataplane.proxy.ProxySettings;
import io.netty.channel.Channel;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
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
 * <p>Each port is served by {@link ProxySettings#instances()} event loops of the Vert.x instance,
 * bound by {@link PortBinder}. A connection and its member connections stay on one loop.
 */
public final class TrafficListeners implements TableObserver {
  private static final Logger log = LoggerFactory.getLogger(TrafficListeners.class);

  private final VertxInternal vertx;
  private final ProxySettings settings;
  private final Forwarding fw;
  private final ClientGate gate;
  private final PortBinder binder;

  private Listener shared;
  private Listener sharedTls;
  private Listener pendingSharedTls;
  private final Map<Integer, Listener> dedicated = new HashMap<>();
  private final Map<Integer, Listener> pending = new HashMap<>();

  public TrafficListeners(
      Vertx vertx, ProxySettings settings, Supplier<RoutingTable> table, Forwarding fw) {
    this.vertx = (VertxInternal) vertx;
    this.settings = settings;
    this.fw = fw;
    this.gate = new ClientGate(settings.maxClientConnections());
    this.binder = new PortBinder(this.vertx, settings, table, fw, gate);
  }

  /** Binds the shared plain port. */
  public Future<Void> start() {
    return binder
        .bind(settings.trafficPort(), null, false)
        .map(
            l -> {
              synchronized (this) {
                shared = l;
              }
              log.info(
                  "traffic listening on {}:{} ({} event loop(s), {})",
                  settings.listenHost(),
                  l.port,
                  binder.loopCount(),
                  binder.reusePort() ? "epoll, SO_REUSEPORT" : "one accepting socket");
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
            binder
                .bind(port, p.name(), p.tls() != null)
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
          binder
              .bind(settings.tlsPort(), null, true)
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
    pending.values().forEach(Listener::closeNow);
    pending.clear();
    if (pendingSharedTls != null) {
      pendingSharedTls.closeNow();
      pendingSharedTls = null;
    }
  }

  @Override
  public synchronized void installed(TableObserver.Change change) {
    RoutingTable next = change.next();
    adoptPending();
    followDedicatedPorts(next);
    if (sharedTls != null && !anySharedTls(next)) {
      log.info("no pool has TLS any more: closing port {}", sharedTls.port);
      drain(sharedTls);
      sharedTls = null;
    }
    closeTunnelsOfLeavingMembers(change);
  }

  /** The ports bound for this swap start to count as the table's. */
  private void adoptPending() {
    dedicated.putAll(pending);
    pending.clear();
    if (pendingSharedTls != null) {
      sharedTls = pendingSharedTls;
      pendingSharedTls = null;
      log.info("TLS traffic listening on {}:{}", settings.listenHost(), sharedTls.port);
    }
  }

  /**
   * Drains the dedicated ports no pool of {@code next} owns any more, and binds anew those whose
   * pool went between plain text and TLS.
   */
  private void followDedicatedPorts(RoutingTable next) {
    for (Integer port : new ArrayList<>(dedicated.keySet())) {
      Listener l = dedicated.get(port);
      PoolRuntime p = next.poolForPort(port);
      if (p == null || !p.name().equals(l.pool)) {
        log.info("closing port {} of pool {}", port, l.pool);
        dedicated.remove(port);
        drain(l);
      } else if (l.tls != (p.tls() != null)) {
        dedicated.remove(port);
        rebind(port, l, p);
      }
    }
  }

  /** Between plain text and TLS: the port must be bound anew, once its connections drained. */
  private void rebind(int port, Listener l, PoolRuntime p) {
    String pool = p.name();
    boolean tls = p.tls() != null;
    drain(l)
        .transform(ar -> binder.bind(port, pool, tls))
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
}
