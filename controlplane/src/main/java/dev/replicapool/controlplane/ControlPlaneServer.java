package dev.replicapool.controlplane;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.StreamMessage;
import dev.replicapool.api.wire.TlsMaterial;
import io.soabase.recordbuilder.core.RecordBuilder;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.ServerWebSocketHandshake;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
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
 *   <li>Data planes may only send {@code hello}, {@code ack} and {@code nack}; anything else,
 *       malformed JSON or a binary frame closes that connection (never the server).
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
 * <p>Why one class past 300 lines: one lock guards the pools' latest frames, the connections, what
 * each was sent and what each acknowledged, and every decision (who gets a frame, who counts for a
 * pool) reads all of them at once; split, the pieces would share that lock and its invariants. Who
 * may serve which group lives apart, in {@link DataPlaneCredentials}.
 */
public final class ControlPlaneServer {
  private static final Logger log = LoggerFactory.getLogger(ControlPlaneServer.class);
  private static final int MAX_ERROR_CHARS = 512;
  private static final int MAX_NODE_CHARS = 253;
  private static final Set<String> DEFAULT_GROUPS = Set.of(ControlPlaneProtocol.DEFAULT_GROUP);

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

  /**
   * The pool's latest frame and the data-plane groups that serve it (for a removal: the groups that
   * served it last).
   */
  private record Entry(long version, String frame, boolean removed, Set<String> groups) {}

  private record Nack(long version, String error) {}

  private static final class Connection {
    final ServerWebSocket ws;
    final String remote;
    // The subject of the client certificate under mutual TLS, else null.
    final String clientSubject;
    // The group the client certificate names, else null; set when it names an invalid one.
    final String certificateGroup;
    final String certificateProblem;
    final DataPlaneCredentials.Grant grant;
    String node;
    String group;
    // Pools whose snapshot this connection was sent and not told to remove since.
    final Set<String> holding = new HashSet<>();
    boolean closed;
    final Map<String, Long> acked = new HashMap<>();
    final Map<String, Nack> nacks = new HashMap<>();

    Connection(
        ServerWebSocket ws,
        String clientSubject,
        String certificateGroup,
        String certificateProblem,
        DataPlaneCredentials.Grant grant) {
      this.ws = ws;
      this.remote = String.valueOf(ws.remoteAddress());
      this.clientSubject = clientSubject;
      this.certificateGroup = certificateGroup;
      this.certificateProblem = certificateProblem;
      this.grant = grant;
    }

    void send(Entry e, String pool) {
      ws.writeTextMessage(e.frame());
      if (e.removed()) {
        holding.remove(pool);
      } else {
        holding.add(pool);
      }
    }
  }

  private final Vertx vertx;
  private final Options options;
  private volatile DataPlaneCredentials credentials;
  private final Object lock = new Object();
  private final Map<String, Entry> pools = new LinkedHashMap<>();
  private final Set<Connection> connections = new LinkedHashSet<>();
  private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();
  private HttpServer server;
  private boolean initialSyncDone;
  private boolean everyPoolPublished;
  private static final String SYNCED_FRAME = WireCodec.encode(StreamMessage.synced(true));
  private static final String SYNCED_INCOMPLETE_FRAME =
      WireCodec.encode(StreamMessage.synced(false));

  public ControlPlaneServer(Vertx vertx, Options options) {
    this.vertx = Objects.requireNonNull(vertx);
    this.options = Objects.requireNonNull(options);
    setToken(options.token());
  }

  /** Replaces the accepted token (a rotated Secret); connections already open stay. */
  public void setToken(String token) {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("a control-plane token is required");
    }
    credentials = new DataPlaneCredentials(token, options.groupTokens());
  }

  /** Binds the port; the future holds the actual port. */
  public Future<Integer> start() {
    HttpServerOptions o =
        new HttpServerOptions()
            .setHost(options.host())
            .setPort(options.port())
            .setMaxWebSocketFrameSize(ControlPlaneProtocol.MAX_FRAME_BYTES)
            .setMaxWebSocketMessageSize(ControlPlaneProtocol.MAX_FRAME_BYTES)
            .setReadIdleTimeout((int) options.readIdleTimeoutMillis())
            .setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
    if (options.tls() != null) {
      o.setSsl(true)
          .setKeyCertOptions(
              new PemKeyCertOptions()
                  .setCertValue(Buffer.buffer(options.tls().certificatePem()))
                  .setKeyValue(Buffer.buffer(options.tls().privateKeyPem())));
    }
    if (options.mutualTls()) {
      // A client without a certificate signed by this CA fails the TLS handshake: it never gets
      // to send its token, let alone a hello.
      o.setClientAuth(ClientAuth.REQUIRED)
          .setTrustOptions(
              new PemTrustOptions().addCertValue(Buffer.buffer(options.clientCaPem())));
    }
    HttpServer s =
        vertx
            .createHttpServer(o)
            .webSocketHandshakeHandler(this::handshake)
            .webSocketHandler(this::connected)
            .requestHandler(this::plainRequest)
            .exceptionHandler(this::connectionError);
    return s.listen()
        .map(
            bound -> {
              synchronized (lock) {
                server = bound;
              }
              log.info(
                  "control-plane stream listening on {}:{} ({})",
                  options.host(),
                  port(),
                  options.mutualTls()
                      ? "mutual TLS: client certificates required"
                      : options.tls() != null ? "TLS" : "plain TCP");
              return bound.actualPort();
            });
  }

  private void connectionError(Throwable t) {
    if (t instanceof SSLHandshakeException) {
      // A data plane without a certificate the client CA signed, or one that does not trust this
      // port's certificate: the one place that says why it never connects (no address is known).
      log.info("control-plane TLS handshake failed: {}", t.getMessage());
    } else {
      log.debug("control-plane connection error: {}", t.toString());
    }
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
    synchronized (lock) {
      if (initialSyncDone) {
        return;
      }
      initialSyncDone = true;
      this.everyPoolPublished = everyPoolPublished;
      for (Connection c : connections) {
        c.ws.writeTextMessage(syncedFrame());
      }
    }
  }

  private String syncedFrame() {
    return everyPoolPublished ? SYNCED_FRAME : SYNCED_INCOMPLETE_FRAME;
  }

  /** Registers a listener told the pool whose {@link #syncState} changed. */
  public void onSyncChange(Consumer<String> listener) {
    listeners.add(Objects.requireNonNull(listener));
  }

  /**
   * A version for the pool's next snapshot: above every version this server saw for it, and at
   * least the current time in milliseconds so that it also tops the versions of an earlier operator
   * process.
   */
  public long nextVersion(String pool) {
    synchronized (lock) {
      Entry e = pools.get(pool);
      long last = e == null ? 0 : e.version();
      return Math.max(last + 1, System.currentTimeMillis());
    }
  }

  /** {@link #publish(PoolSnapshot, Set)} for the data planes of the default group. */
  public boolean publish(PoolSnapshot snapshot) {
    return publish(snapshot, DEFAULT_GROUPS);
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
    synchronized (lock) {
      Entry old = pools.get(snapshot.pool());
      if (old != null && snapshot.version() <= old.version()) {
        log.warn(
            "not publishing {} version {}: version {} was already published",
            snapshot.pool(),
            snapshot.version(),
            old.version());
        return false;
      }
      Entry entry = new Entry(snapshot.version(), frame, false, served);
      pools.put(snapshot.pool(), entry);
      String removal = null;
      for (Connection c : connections) {
        if (served.contains(c.group)) {
          c.send(entry, snapshot.pool());
        } else if (c.holding.remove(snapshot.pool())) {
          if (removal == null) {
            removal = WireCodec.encode(StreamMessage.remove(snapshot.pool(), snapshot.version()));
          }
          c.ws.writeTextMessage(removal);
        }
      }
    }
    return true;
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
    synchronized (lock) {
      long version = nextVersion(pool);
      String frame = WireCodec.encode(StreamMessage.remove(pool, version));
      Entry old = pools.get(pool);
      Entry entry = new Entry(version, frame, true, old == null ? DEFAULT_GROUPS : old.groups());
      pools.put(pool, entry);
      for (Connection c : connections) {
        if (entry.groups().contains(c.group) || c.holding.contains(pool)) {
          c.send(entry, pool);
        }
      }
      return version;
    }
  }

  /** The latest version published (or removed) for the pool, 0 when none. */
  public long latestVersion(String pool) {
    synchronized (lock) {
      Entry e = pools.get(pool);
      return e == null ? 0 : e.version();
    }
  }

  /**
   * How many connected data planes of the pool's groups run the pool's latest version, and their
   * NACKs.
   */
  public SyncState syncState(String pool) {
    synchronized (lock) {
      return syncStateLocked(pool);
    }
  }

  /** Node names of the connected data planes (after their hello), in connection order. */
  public List<String> dataPlanes() {
    synchronized (lock) {
      return connections.stream().map(c -> c.node).toList();
    }
  }

  /** Node names of the connected data planes of one group, in connection order. */
  public List<String> dataPlanes(String group) {
    synchronized (lock) {
      return connections.stream().filter(c -> c.group.equals(group)).map(c -> c.node).toList();
    }
  }

  private SyncState syncStateLocked(String pool) {
    Entry e = pools.get(pool);
    long latest = e == null ? 0 : e.version();
    Set<String> groups = e == null ? DEFAULT_GROUPS : e.groups();
    int total = 0;
    int atLatest = 0;
    List<String> nacks = new ArrayList<>();
    for (Connection c : connections) {
      if (!groups.contains(c.group)) {
        continue;
      }
      total++;
      long acked = c.acked.getOrDefault(pool, 0L);
      if (e != null && acked >= latest) {
        atLatest++;
      }
      Nack n = c.nacks.get(pool);
      if (n != null && n.version() > acked) {
        nacks.add(c.node + ": version " + n.version() + ": " + n.error());
      }
    }
    return new SyncState(total, atLatest, latest, nacks);
  }

  private Map<String, SyncState> statesLocked(Collection<String> names) {
    Map<String, SyncState> states = new TreeMap<>();
    for (String p : names) {
      states.put(p, syncStateLocked(p));
    }
    return states;
  }

  private void handshake(ServerWebSocketHandshake hs) {
    if (!authorized(hs.headers())) {
      log.warn(
          "refused a control-plane connection from {}{}: bad or no token",
          hs.remoteAddress(),
          options.mutualTls()
              ? " (client certificate " + clientSubject(hs::peerCertificates) + ")"
              : "");
      hs.reject(401);
      return;
    }
    if (!ControlPlaneProtocol.STREAM_PATH.equals(hs.path())) {
      hs.reject(404);
      return;
    }
    hs.accept();
  }

  private void plainRequest(HttpServerRequest req) {
    int status = !authorized(req.headers()) ? 401 : 426;
    req.response().setStatusCode(status).end();
  }

  private boolean authorized(MultiMap headers) {
    return grant(headers) != null;
  }

  private DataPlaneCredentials.Grant grant(MultiMap headers) {
    return credentials.grant(headers.get(ControlPlaneProtocol.AUTHORIZATION));
  }

  private void connected(ServerWebSocket ws) {
    String certificateGroup = null;
    String certificateProblem = null;
    if (options.mutualTls()) {
      try {
        certificateGroup = certificateGroup(ws.peerCertificates());
      } catch (SSLPeerUnverifiedException | IllegalArgumentException e) {
        certificateProblem = sanitize(e.getMessage());
      }
    }
    Connection c =
        new Connection(
            ws,
            options.mutualTls() ? clientSubject(ws::peerCertificates) : null,
            certificateGroup,
            certificateProblem,
            grant(ws.headers()));
    ws.textMessageHandler(text -> onText(c, text));
    ws.binaryMessageHandler(b -> close(c, (short) 1003, "binary frames are not accepted"));
    ws.exceptionHandler(t -> log.debug("control-plane stream {}: {}", c.remote, t.toString()));
    ws.closeHandler(v -> disconnected(c));
  }

  private void onText(Connection c, String text) {
    StreamMessage m;
    try {
      m = WireCodec.decode(text);
    } catch (WireCodec.MalformedFrameException e) {
      close(c, (short) 1007, e.getMessage());
      return;
    }
    try {
      switch (m.type()) {
        case hello -> hello(c, m.node(), m.group());
        case ack, nack -> answer(c, m);
        case answers -> answers(c, m);
        default -> close(c, (short) 1008, "data planes may only send hello, ack, nack and answers");
      }
    } catch (RuntimeException e) {
      log.warn("control-plane frame from {} failed: {}", c.remote, e.toString());
      close(c, (short) 1011, "internal error");
    }
  }

  private void hello(Connection c, String node, String declaredGroup) {
    if (node == null || node.isBlank() || node.length() > MAX_NODE_CHARS) {
      close(c, (short) 1008, "hello needs a node name");
      return;
    }
    String group = groupOf(c, declaredGroup);
    if (group == null) {
      return;
    }
    Map<String, SyncState> before;
    Map<String, SyncState> after;
    List<Connection> replaced;
    synchronized (lock) {
      if (c.closed || c.node != null) {
        if (!c.closed) {
          close(c, (short) 1008, "hello twice");
        }
        return;
      }
      before = statesLocked(pools.keySet());
      replaced = admitLocked(c, node.strip(), group);
      after = statesLocked(pools.keySet());
    }
    for (Connection old : replaced) {
      log.warn(
          "data plane {} connected again from {}: closing its older stream from {}",
          c.node,
          c.remote,
          old.remote);
      old.ws.close((short) 1008, "replaced by a newer stream of the same node");
    }
    if (c.clientSubject != null) {
      log.info(
          "data plane {} of group {} connected from {} with client certificate {}",
          c.node,
          c.group,
          c.remote,
          c.clientSubject);
    } else {
      log.info("data plane {} of group {} connected from {}", c.node, c.group, c.remote);
    }
    fireChanges(before, after);
  }

  /**
   * Counts the connection as the data plane {@code node} of {@code group} and sends it what its
   * group gets; returns the older streams of the same node it replaces (to be closed).
   */
  private List<Connection> admitLocked(Connection c, String node, String group) {
    c.node = node;
    c.group = group;
    // One connection per node: a data plane that redials before this server noticed its old
    // stream died must not count twice in DataPlaneSynced. The newer stream wins.
    List<Connection> replaced = new ArrayList<>();
    for (Connection other : List.copyOf(connections)) {
      if (other.node.equals(c.node)) {
        connections.remove(other);
        other.closed = true;
        replaced.add(other);
      }
    }
    connections.add(c);
    for (Map.Entry<String, Entry> e : pools.entrySet()) {
      if (e.getValue().groups().contains(group)) {
        c.send(e.getValue(), e.getKey());
      }
    }
    if (initialSyncDone) {
      c.ws.writeTextMessage(syncedFrame());
    }
    return replaced;
  }

  /**
   * The group the connection serves: its certificate's, else the one its hello names, else the
   * default one; null (and the connection closed) when its token or certificate may not serve it.
   */
  private String groupOf(Connection c, String declared) {
    if (declared != null && !ControlPlaneProtocol.validGroup(declared)) {
      close(c, (short) 1008, "hello names an invalid data-plane group");
      return null;
    }
    if (c.certificateProblem != null) {
      close(c, (short) 1008, c.certificateProblem);
      return null;
    }
    String group =
        c.certificateGroup != null
            ? c.certificateGroup
            : declared != null ? declared : ControlPlaneProtocol.DEFAULT_GROUP;
    String refusal =
        c.grant == null
            ? "bad or no token"
            : credentials.refusal(c.grant, declared != null ? declared : group, c.certificateGroup);
    if (refusal != null) {
      close(c, (short) 1008, refusal);
      return null;
    }
    return group;
  }

  private void answers(Connection c, StreamMessage m) {
    List<StreamMessage> list = m.answers();
    if (list == null || list.isEmpty()) {
      close(c, (short) 1007, "answers needs a list of ack and nack");
      return;
    }
    for (StreamMessage a : list) {
      if (a == null
          || (a.type() != StreamMessage.Type.ack && a.type() != StreamMessage.Type.nack)) {
        close(c, (short) 1008, "answers may only hold ack and nack");
        return;
      }
    }
    for (StreamMessage a : list) {
      if (c.closed) {
        return;
      }
      answer(c, a);
    }
  }

  private void answer(Connection c, StreamMessage m) {
    if (c.node == null) {
      close(c, (short) 1008, "hello first");
      return;
    }
    if (m.pool() == null || m.version() == null) {
      close(c, (short) 1007, m.type() + " needs pool and version");
      return;
    }
    String pool = m.pool();
    long version = m.version();
    SyncState before;
    SyncState after;
    synchronized (lock) {
      if (c.closed || !connections.contains(c) || !pools.containsKey(pool)) {
        return; // an answer about a pool this server does not know changes nothing
      }
      before = syncStateLocked(pool);
      if (m.type() == StreamMessage.Type.ack) {
        if (version > c.acked.getOrDefault(pool, 0L)) {
          c.acked.put(pool, version);
        }
      } else {
        c.nacks.put(pool, new Nack(version, sanitize(m.error())));
        log.warn(
            "data plane {} rejected {} version {}: {}", c.node, pool, version, sanitize(m.error()));
      }
      after = syncStateLocked(pool);
    }
    if (!before.equals(after)) {
      fire(pool);
    }
  }

  private void disconnected(Connection c) {
    Map<String, SyncState> before;
    Map<String, SyncState> after;
    synchronized (lock) {
      c.closed = true;
      if (!connections.contains(c)) {
        return;
      }
      before = statesLocked(pools.keySet());
      connections.remove(c);
      after = statesLocked(pools.keySet());
    }
    log.info("data plane {} disconnected ({})", c.node, c.remote);
    fireChanges(before, after);
  }

  private void close(Connection c, short code, String reason) {
    log.warn("closing control-plane connection {} ({}): {}", c.remote, c.node, reason);
    String r = reason.length() > 120 ? reason.substring(0, 120) : reason;
    c.ws.close(code, r);
  }

  private void fireChanges(Map<String, SyncState> before, Map<String, SyncState> after) {
    for (Map.Entry<String, SyncState> e : after.entrySet()) {
      if (!e.getValue().equals(before.get(e.getKey()))) {
        fire(e.getKey());
      }
    }
  }

  private void fire(String pool) {
    for (Consumer<String> l : listeners) {
      try {
        l.accept(pool);
      } catch (RuntimeException e) {
        log.warn("sync listener failed for {}", pool, e);
      }
    }
  }

  private static String sanitize(String error) {
    if (error == null || error.isBlank()) {
      return "no reason given";
    }
    String s = error.replaceAll("[\\p{Cntrl}]", " ").strip();
    return s.length() > MAX_ERROR_CHARS ? s.substring(0, MAX_ERROR_CHARS) + "..." : s;
  }

  /** {@code peerCertificates()} of a WebSocket or of its handshake. */
  private interface PeerCertificates {
    List<Certificate> get() throws SSLPeerUnverifiedException;
  }

  /** The group the leaf certificate of the chain names, or null. */
  private static String certificateGroup(List<Certificate> chain) {
    if (chain != null && !chain.isEmpty() && chain.get(0) instanceof X509Certificate x) {
      return DataPlaneCredentials.certificateGroup(x);
    }
    return null;
  }

  /** The subject of the peer's certificate, for the log; never throws. */
  private static String clientSubject(PeerCertificates peer) {
    List<Certificate> chain;
    try {
      chain = peer.get();
    } catch (SSLPeerUnverifiedException | RuntimeException e) {
      return "(unavailable: " + e.getClass().getSimpleName() + ")";
    }
    if (chain != null && !chain.isEmpty() && chain.get(0) instanceof X509Certificate x) {
      String subject = x.getSubjectX500Principal().getName();
      return subject.isBlank() ? "(empty subject)" : sanitize(subject);
    }
    return "(none)";
  }
}
