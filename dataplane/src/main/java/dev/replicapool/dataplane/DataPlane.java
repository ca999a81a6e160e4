package dev.replicapool.dataplane;

import dev.replicapool.controlplane.ControlPlaneClient;
import dev.replicapool.dataplane.accesslog.AccessLog;
import dev.replicapool.dataplane.accesslog.AccessLogConfig;
import dev.replicapool.dataplane.admin.AdminServer;
import dev.replicapool.dataplane.admin.DataPlaneMetrics;
import dev.replicapool.dataplane.admin.StatusReport;
import dev.replicapool.dataplane.config.ConfigStore;
import dev.replicapool.dataplane.forward.Forwarding;
import dev.replicapool.dataplane.listen.TrafficListeners;
import dev.replicapool.dataplane.proxy.ProxySettings;
import dev.replicapool.dataplane.tracing.Tracing;
import dev.replicapool.dataplane.tracing.TracingConfig;
import dev.replicapool.dataplane.upstream.MemberConnections;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.SecureRandom;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One data plane: the traffic listeners, the routing table fed by the control-plane stream, the
 * admin port. {@link #start} wires and binds everything; {@link #stop} drains.
 */
public final class DataPlane {
  private static final Logger log = LoggerFactory.getLogger(DataPlane.class);

  /**
   * @param controlPlane the operator's stream client settings (host, port, token, node, trust)
   * @param adminHost interface of the admin port
   * @param adminPort admin port; 0 picks one
   * @param accessLog where and how the access log is written (off by default)
   * @param tracing where spans go and how many traces are recorded (off by default)
   */
  public record Config(
      ControlPlaneClient.Options controlPlane,
      ProxySettings proxy,
      String adminHost,
      int adminPort,
      AccessLogConfig accessLog,
      TracingConfig tracing) {
    public Config {
      Objects.requireNonNull(controlPlane, "controlPlane");
      Objects.requireNonNull(proxy, "proxy");
      Objects.requireNonNull(accessLog, "accessLog");
      Objects.requireNonNull(tracing, "tracing");
    }

    /** Without tracing. */
    public Config(
        ControlPlaneClient.Options controlPlane,
        ProxySettings proxy,
        String adminHost,
        int adminPort,
        AccessLogConfig accessLog) {
      this(controlPlane, proxy, adminHost, adminPort, accessLog, TracingConfig.OFF);
    }

    /** Without an access log. */
    public Config(
        ControlPlaneClient.Options controlPlane,
        ProxySettings proxy,
        String adminHost,
        int adminPort) {
      this(controlPlane, proxy, adminHost, adminPort, AccessLogConfig.OFF);
    }
  }

  private final Vertx vertx;
  private final Config config;
  private final ConfigStore store;
  private final DataPlaneMetrics metrics;
  private final Forwarding forwarding;
  private final TrafficListeners listeners;
  private final AdminServer admin;
  private final ControlPlaneClient client;
  private final AccessLog accessLog;

  /** Null when tracing is off. */
  private final Tracing tracing;

  /**
   * Whether it still waits for its warm-up (set when the settings ask for one; {@link #warmedUp}
   * clears it): read by the admin port's threads.
   */
  private volatile boolean warming;

  private DataPlane(Vertx vertx, Config config) {
    this.vertx = vertx;
    this.config = config;
    this.warming = config.proxy().warmUpMillis() > 0;
    Random seeds = new SecureRandom();
    ConfigStore[] self = new ConfigStore[1];
    this.metrics = new DataPlaneMetrics(() -> self[0].table(), System::nanoTime);
    this.store =
        new ConfigStore(
            vertx,
            Set.of(),
            System::nanoTime,
            () -> new Random(seeds.nextLong()),
            metrics::eventsFor);
    self[0] = store;
    ProxySettings p = config.proxy();
    store.defaultIdleTimeoutMillis(p.upstreamIdleTimeoutMillis());
    MemberConnections.Dialer dialer = dialer((VertxInternal) vertx, p);
    // This data plane's pseudonym in Via headers: random, so that no two processes share it.
    String viaName = "replicapool-" + HexFormat.of().toHexDigits(new SecureRandom().nextInt());
    this.accessLog = openAccessLog(config.accessLog());
    metrics.accessLogDropped(accessLog::dropped);
    this.tracing = Tracing.start(config.tracing());
    this.forwarding =
        new Forwarding(
            p, store::table, metrics, System::nanoTime, viaName, dialer, accessLog, tracing);
    this.listeners = new TrafficListeners(vertx, p, store::table, forwarding);
    store.addObserver(listeners);
    store.addObserver(metrics);
    metrics.clientConnections(
        listeners::openClientConnections, listeners::refusedClientConnections);
    metrics.tunnels(forwarding.tunnels()::count);
    this.admin =
        new AdminServer(
            vertx, config.adminHost(), config.adminPort(), this::status, metrics, this::notReady);
    this.client =
        new ControlPlaneClient(vertx, config.controlPlane(), store, new Random(seeds.nextLong()));
    client.onConnectionChange(metrics::controlPlaneConnected);
  }

  private static AccessLog openAccessLog(AccessLogConfig c) {
    try {
      return c.open();
    } catch (IOException e) {
      throw new UncheckedIOException("access log " + c.target() + " cannot be opened", e);
    }
  }

  /** How the member connections are dialled: the Vert.x transport and resolver, the settings. */
  @SuppressWarnings("unchecked")
  private static MemberConnections.Dialer dialer(VertxInternal vertx, ProxySettings p) {
    return new MemberConnections.Dialer(
        (io.netty.channel.ChannelFactory<io.netty.channel.Channel>)
            vertx.transport().channelFactory(false),
        vertx.nameResolver().nettyAddressResolverGroup(),
        p.upstreamConnectTimeoutMillis(),
        TimeUnit.SECONDS.toNanos(p.upstreamKeepAliveSeconds()),
        p.maxConnectionsPerMember());
  }

  /** Binds the traffic and admin ports, then dials the control plane. */
  public static Future<DataPlane> start(Vertx vertx, Config config) {
    DataPlane dp = new DataPlane(vertx, config);
    return dp.listeners
        .start()
        .compose(v -> dp.admin.start())
        .map(
            adminPort -> {
              Set<Integer> reserved = new HashSet<>();
              reserved.add(dp.listeners.trafficPort());
              reserved.add(adminPort);
              if (config.proxy().tlsPort() > 0) {
                reserved.add(config.proxy().tlsPort());
              }
              dp.store.reservePorts(reserved);
              dp.client.start();
              log.info(
                  "data plane {} up: traffic {}, admin {}, control plane {}:{}",
                  config.controlPlane().node(),
                  dp.listeners.trafficPort(),
                  adminPort,
                  config.controlPlane().host(),
                  config.controlPlane().port());
              return dp;
            });
  }

  /**
   * Stops taking new connections and requests, lets in-flight ones finish (up to the drain time),
   * then closes everything. The Vert.x instance stays for the caller to close.
   */
  public Future<Void> stop() {
    log.info("data plane stopping: draining for up to {} ms", config.proxy().drainMillis());
    return client
        .stop()
        .transform(ar -> listeners.shutdown())
        .transform(ar -> admin.stop())
        .onComplete(
            ar -> {
              accessLog.close();
              if (tracing != null) {
                tracing.close(); // exports what is queued, for at most a few seconds
              }
              metrics.close();
            });
  }

  public int trafficPort() {
    return listeners.trafficPort();
  }

  /** The shared TLS port, -1 while no pool has TLS. */
  public int tlsPort() {
    return listeners.tlsPort();
  }

  public int adminPort() {
    return admin.port();
  }

  public ConfigStore store() {
    return store;
  }

  public DataPlaneMetrics metrics() {
    return metrics;
  }

  public boolean controlPlaneConnected() {
    return client.connected();
  }

  public Vertx vertx() {
    return vertx;
  }

  /**
   * Its request paths are warm (the warm-up {@link ProxySettings#warmUpMillis} asks for is over, or
   * failed): it may say it is ready once it has its first snapshot.
   */
  public void warmedUp() {
    warming = false;
  }

  /** Why it is not ready, null once it is: ready needs the first snapshot and a warm run. */
  private String notReady() {
    if (!store.ready()) {
      return "waiting for the first snapshot";
    }
    return warming ? "warming up its request paths" : null;
  }

  private JsonObject status() {
    return new JsonObject()
        .put("node", config.controlPlane().node())
        .put("ready", notReady() == null)
        .put("warmingUp", warming)
        .put(
            "controlPlane",
            new JsonObject()
                .put("address", config.controlPlane().host() + ":" + config.controlPlane().port())
                .put("connected", client.connected())
                .put("lastError", client.lastError()))
        .put(
            "listeners",
            new JsonObject()
                .put("traffic", listeners.trafficPort())
                .put("tls", listeners.tlsPort())
                .put("dedicated", new JsonObject(new java.util.HashMap<>(stringKeys()))))
        .put("pools", StatusReport.pools(store.table()));
  }

  private java.util.Map<String, Object> stringKeys() {
    java.util.Map<String, Object> m = new java.util.TreeMap<>();
    listeners.dedicatedPorts().forEach((port, pool) -> m.put(String.valueOf(port), pool));
    return m;
  }
}
