package dev.replicapool.controlplane;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.StreamMessage;
import dev.replicapool.api.wire.TlsMaterial;
import io.soabase.recordbuilder.core.RecordBuilder;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's end of the control-plane stream: a WebSocket endpoint at {@link
 * ControlPlaneProtocol#STREAM_PATH} that data planes dial with {@code Authorization: Bearer
 * <token>}, optionally over TLS ({@link Options#withTls}) and with client certificates (mutual TLS,
 * {@link Options#withClientCa}), the token being checked in every case.
 *
 * <ul>
 *   <li>{@link #publish} keeps the latest snapshot per pool and sends it to every connected data
 *       plane of the pool's data-plane groups, and only to them: a pool's TLS key never reaches a
 *       data plane of another group. A data plane that says {@code hello} gets every current
 *       snapshot of its group (and the removals this server made) at once; one that held a pool
 *       whose groups no longer include its own is told to remove it.
 *   <li>A data plane's group is the one its client certificate names ({@link
 *       DataPlaneCredentials#certificateGroup}), else the one its hello names, else {@link
 *       ControlPlaneProtocol#DEFAULT_GROUP}; a group with a token of its own ({@link
 *       Options#withGroupTokens}) is served only to that token.
 *   <li>Per data plane (node name and connection) the server remembers the last ACKed version and
 *       the last NACK of each pool; {@link #syncState} sums that up for the pool's status and
 *       {@link #onSyncChange} tells when it changed.
 *   <li>A data plane that rejects a pool's latest snapshot is sent it again until it applies or a
 *       newer version replaces it ({@link NackRetry}: at once when that data plane gives up a host
 *       or port, else with a backoff), every rejected pool of the data plane together, so that
 *       pools that swap hosts apply in one batch.
 *   <li>Data planes may only send {@code hello}, {@code ack}, {@code nack} and {@code answers};
 *       anything else, malformed JSON, a binary frame or a message over {@link
 *       ControlPlaneProtocol#MAX_FRAME_BYTES} (1009) closes that connection (never the server). A
 *       connection whose handshake is not complete {@link HeadDeadline#MILLIS} after it opened is
 *       closed ({@link HeadDeadline}).
 * </ul>
 *
 * <p>Versions: {@link #publish} only accepts a version above the last one of the pool (removals
 * included). Use {@link #nextVersion} to get one: it is based on the wall clock, so versions keep
 * growing across operator restarts and data planes that still remember the old ones accept the new
 * operator's snapshots.
 *
 * <p>Each connection counts as one data plane of its group, named by its hello. A data plane that
 * restarts closes its old connection; one that vanished without closing it (a crashed node) stops
 * counting after {@link Options#readIdleTimeoutMillis()} without pings.
 *
 * <p>Thread-safe: {@code publish}, {@code remove} and {@code syncState} may be called from any
 * thread. Listeners run on the server's event loop and must not block.
 *
 * <p>The parts: {@link ServerSecurity} (TLS, tokens, client certificates), {@link FrameDispatcher}
 * with a handler per frame type, and {@link StreamHub}, which keeps the pools' latest frames
 * ({@link SnapshotStore}) and the data planes' answers ({@link AckLedger}) under one lock. Past 300
 * lines only by its {@link Options} record and the contracts of its public methods; the logic is in
 * the parts.
 */
public final class ControlPlaneServer {
  private static final Logger log = LoggerFactory.getLogger(ControlPlaneServer.class);

  /**
   * @param host interface to bind, e.g. 0.0.0.0
   * @param port 0 picks a free port
   * @param token the shared secret every data plane presents as a bearer token
   * @param tls key and certificate of the port, or null for plain TCP
   * @param clientCaPem PEM certificates of the CA(s) that sign the data planes' client
   *     certificates, or null: when set (TLS required), the TLS handshake demands a client
   *     certificate signed by one of them (mutual TLS), and the bearer token is still checked
   * @param readIdleTimeoutMillis a connection on which nothing (not even a ping) arrived for this
   *     long is closed; data planes ping well within it
   * @param groupTokens data-plane group to the token only its data planes present; empty for none
   */
  @RecordBuilder
  public record Options(
      String host,
      int port,
      String token,
      TlsMaterial tls,
      String clientCaPem,
      long readIdleTimeoutMillis,
      Map<String, String> groupTokens) {
    public Options {
      groupTokens = Map.copyOf(groupTokens);
      Objects.requireNonNull(host, "host");
      if (token == null || token.isBlank()) {
        throw new IllegalArgumentException("a control-plane token is required");
      }
      if (readIdleTimeoutMillis <= 0) {
        throw new IllegalArgumentException("readIdleTimeoutMillis must be positive");
      }
      if (clientCaPem != null && clientCaPem.isBlank()) {
        throw new IllegalArgumentException("the client CA is empty");
      }
      if (clientCaPem != null && tls == null) {
        throw new IllegalArgumentException(
            "a client CA (mutual TLS) needs TLS on the control-plane port: a certificate and key");
      }
    }

    public Options(String host, int port, String token) {
      this(host, port, token, null, null, 60_000, Map.of());
    }

    public Options withTls(TlsMaterial tls) {
      return ControlPlaneServerOptionsBuilder.builder(this).tls(tls).build();
    }

    /**
     * Gives these data-plane groups tokens of their own (group to token): a data plane of such a
     * group must present its group's token, and that token serves no other group.
     */
    public Options withGroupTokens(Map<String, String> tokens) {
      return ControlPlaneServerOptionsBuilder.builder(this).groupTokens(tokens).build();
    }

    /**
     * Requires every data plane to present a client certificate signed by one of these CAs (PEM);
     * needs {@link #withTls} first.
     */
    public Options withClientCa(String pem) {
      return ControlPlaneServerOptionsBuilder.builder(this).clientCaPem(pem).build();
    }

    /** True when data planes must present a client certificate. */
    public boolean mutualTls() {
      return clientCaPem != null;
    }

    @Override
    public String toString() {
      return "Options[host="
          + host
          + ", port="
          + port
          + ", tls="
          + (tls != null)
          + ", mutualTls="
          + mutualTls()
          + ", groupTokens="
          + new TreeMap<>(groupTokens).keySet()
          + "]";
    }
  }

  private final Vertx vertx;
  private final Options options;
  private final ServerSecurity security;
  private final StreamHub hub;
  private final FrameDispatcher dispatcher;
  private final HeadDeadline headDeadline;

  /** How often the rejected pools whose retry is due are looked for ({@link NackRetry}). */
  static final long RETRY_TICK_MILLIS = 50;

  private final Object lock = new Object();
  private HttpServer server;
  private long retryTimer = -1;

  public ControlPlaneServer(Vertx vertx, Options options) {
    this.vertx = Objects.requireNonNull(vertx);
    this.options = Objects.requireNonNull(options);
    this.security = new ServerSecurity(options);
    this.hub = new StreamHub(System::currentTimeMillis, System::nanoTime);
    this.dispatcher = new FrameDispatcher(hub, security);
    this.headDeadline = new HeadDeadline(vertx, HeadDeadline.MILLIS);
  }

  /** Replaces the accepted token (a rotated Secret); connections already open stay. */
  public void setToken(String token) {
    security.setToken(token);
  }

  /** Binds the port; the future holds the actual port. */
  public Future<Integer> start() {
    HttpServerOptions o =
        security.configure(
            new HttpServerOptions()
                .setHost(options.host())
                .setPort(options.port())
                .setHttp2ClearTextEnabled(false) // the stream is a WebSocket over HTTP/1.1
                .setMaxWebSocketFrameSize(ControlPlaneProtocol.MAX_FRAME_BYTES)
                .setMaxWebSocketMessageSize(ControlPlaneProtocol.MAX_FRAME_BYTES)
                .setReadIdleTimeout((int) options.readIdleTimeoutMillis())
                .setIdleTimeoutUnit(TimeUnit.MILLISECONDS));
    HttpServer s =
        vertx
            .createHttpServer(o)
            .connectionHandler(headDeadline::opened)
            .webSocketHandshakeHandler(
                hs -> {
                  headDeadline.headArrived(hs.remoteAddress());
                  security.handshake(hs);
                })
            .webSocketHandler(dispatcher::connected)
            .requestHandler(
                req -> {
                  headDeadline.headArrived(req.remoteAddress());
                  security.plainRequest(req);
                })
            .exceptionHandler(security::connectionError);
    return s.listen()
        .map(
            bound -> {
              synchronized (lock) {
                server = bound;
                retryTimer = vertx.setPeriodic(RETRY_TICK_MILLIS, id -> hub.retryRejected());
              }
              log.info(
                  "control-plane stream listening on {}:{} ({})",
                  options.host(),
                  port(),
                  security.describe());
              return bound.actualPort();
            });
  }

  /** The bound port, or -1 before {@link #start()}. */
  public int port() {
    synchronized (lock) {
      return server == null ? -1 : server.actualPort();
    }
  }

  /** Closes the port and every connection. */
  public Future<Void> stop() {
    HttpServer s;
    synchronized (lock) {
      s = server;
      server = null;
      if (retryTimer >= 0) {
        vertx.cancelTimer(retryTimer);
        retryTimer = -1;
      }
    }
    return s == null ? Future.succeededFuture() : s.close();
  }

  /**
   * Declares that every pool the operator knows has been published: data planes connected now and
   * later are told they are {@code synced} after their snapshots, so a data plane with no pool to
   * serve can still report ready. Before this, a fresh data plane stays unready. Data planes also
   * drop the pools they serve that were not published (deleted while they were apart).
   */
  public void markInitialSyncDone() {
    markInitialSyncDone(true);
  }

  /**
   * @param everyPoolPublished false when the operator gives up waiting for some pools: data planes
   *     report ready but keep every pool they have, since an unpublished pool may still exist
   */
  public void markInitialSyncDone(boolean everyPoolPublished) {
    hub.markInitialSyncDone(everyPoolPublished);
  }

  /** Registers a listener told the pool whose {@link #syncState} changed. */
  public void onSyncChange(Consumer<String> listener) {
    hub.onSyncChange(listener);
  }

  /**
   * Registers a listener told each version of a pool that every connected data plane serving the
   * pool applied (it or a later version), with how long that took from the publish's trigger; at
   * most once per version, never for a NACK or a disconnect ({@link PushConvergence}). Runs on the
   * server's event loop: must not block.
   */
  public void onConvergence(Consumer<Convergence> listener) {
    hub.onConvergence(listener);
  }

  /**
   * The pool's last converged version, with how long it took from its trigger to the last data
   * plane's ACK; empty before one converged (and after the pool was removed).
   */
  public java.util.Optional<Convergence> lastConvergence(String pool) {
    return hub.lastConvergence(pool);
  }

  /**
   * A version for the pool's next snapshot: above every version this server saw for it, and at
   * least the current time in milliseconds so that it also tops the versions of an earlier operator
   * process.
   */
  public long nextVersion(String pool) {
    return hub.nextVersion(pool);
  }

  /** {@link #publish(PoolSnapshot, Set)} for the data planes of the default group. */
  public boolean publish(PoolSnapshot snapshot) {
    return publish(snapshot, SnapshotStore.DEFAULT_GROUPS);
  }

  /**
   * Stores the snapshot as the pool's latest and sends it to every connected data plane of these
   * groups; a connected data plane of another group that holds the pool is told to remove it (at
   * this version). Does not validate it: an invalid snapshot is sent and the data planes NACK it,
   * which then shows in {@link #syncState}.
   *
   * @param groups the data-plane groups that serve the pool (not empty)
   * @return false (and nothing sent) when its version is not above the pool's last version
   * @throws IllegalArgumentException when it has no pool name or does not fit in one frame
   */
  public boolean publish(PoolSnapshot snapshot, Set<String> groups) {
    return publish(snapshot, groups, System.nanoTime());
  }

  /**
   * {@link #publish(PoolSnapshot, Set)}, saying when the change it carries was seen: the start of
   * its convergence time ({@link #onConvergence}).
   *
   * @param triggerNanos on {@link System#nanoTime()}
   */
  public boolean publish(PoolSnapshot snapshot, Set<String> groups, long triggerNanos) {
    Objects.requireNonNull(snapshot, "snapshot");
    if (groups == null || groups.isEmpty()) {
      throw new IllegalArgumentException("a pool needs at least one data-plane group");
    }
    Set<String> served = Set.copyOf(groups);
    if (snapshot.pool() == null || snapshot.pool().isBlank()) {
      throw new IllegalArgumentException("a snapshot needs a pool name");
    }
    String frame = WireCodec.encode(StreamMessage.snapshot(snapshot));
    if (frame.length() > ControlPlaneProtocol.MAX_FRAME_BYTES / 3
        && frame.getBytes(StandardCharsets.UTF_8).length > ControlPlaneProtocol.MAX_FRAME_BYTES) {
      throw new IllegalArgumentException(
          "snapshot of " + snapshot.pool() + " exceeds " + ControlPlaneProtocol.MAX_FRAME_BYTES);
    }
    return hub.publish(
        snapshot.pool(), snapshot.version(), frame, served, RouteClaims.of(snapshot), triggerNanos);
  }

  /**
   * Tells every data plane that served the pool (its groups, or holding it) to forget it. The
   * removal gets the next version and is replayed to data planes of those groups that connect
   * later, so that one that missed it while away drops the pool too.
   *
   * @return the version of the removal
   */
  public long remove(String pool) {
    Objects.requireNonNull(pool, "pool");
    return hub.remove(pool);
  }

  /** The latest version published (or removed) for the pool, 0 when none. */
  public long latestVersion(String pool) {
    return hub.latestVersion(pool);
  }

  /**
   * How many connected data planes of the pool's groups run the pool's latest version, and their
   * NACKs.
   */
  public SyncState syncState(String pool) {
    return hub.syncState(pool);
  }

  /** Pools whose latest frame is a snapshot (not a removal), sorted. */
  public Set<String> publishedPools() {
    return hub.publishedPools();
  }

  /** Node names of the connected data planes (after their hello), in connection order. */
  public List<String> dataPlanes() {
    return hub.dataPlanes();
  }

  /**
   * The connected data planes (after their hello), in connection order: node, group, address, since
   * when, what each applied and rejects per pool, and its last answer.
   */
  public List<ConnectedDataPlane> connectedDataPlanes() {
    return hub.connected();
  }

  /** Node names of the connected data planes of one group, in connection order. */
  public List<String> dataPlanes(String group) {
    return hub.dataPlanes(group);
  }
}
