package dev.replicapool.controlplane;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.StreamMessage;
import io.soabase.recordbuilder.core.RecordBuilder;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data plane's end of the control-plane stream. Dials the operator, says {@code hello}, hands
 * every {@code snapshot} and {@code remove} frame to a {@link SnapshotApplier} and answers each
 * with an ACK or a NACK carrying the frame's version.
 *
 * <ul>
 *   <li>Versions only grow: a frame older than what was applied for its pool is NACKed and not
 *       applied; the same version again is ACKed without applying it twice.
 *   <li>A snapshot whose {@link PoolSnapshot#problems()} is not empty is NACKed before the applier
 *       sees it.
 *   <li>On disconnect the applier keeps what it has; the client redials with jittered exponential
 *       backoff and, on reconnect, gets every snapshot at once.
 * </ul>
 *
 * <p>All work happens on one Vert.x context, so applier calls never overlap.
 *
 * <p>The parts: this class dials, pings and redials; {@link ClientSecurity} sets up TLS and the
 * token; {@link ApplyQueue} batches the frames for the applier and answers them, with {@link
 * FrameTriage} deciding each frame's fate from the {@link AppliedVersions} ledger. Past 300 lines
 * only by its {@link Options} record, the public settings of the stream.
 */
public final class ControlPlaneClient {
  private static final Logger log = LoggerFactory.getLogger(ControlPlaneClient.class);

  /**
   * @param group the data-plane group this data plane serves (it receives only the pools of its
   *     group); null names none: the operator takes the group of the client certificate, else
   *     {@link ControlPlaneProtocol#DEFAULT_GROUP}
   * @param trustPem PEM certificates that sign the operator's certificate; null for plain TCP
   * @param clientCertPem PEM client certificate (chain) presented to the operator for mutual TLS;
   *     null for none. Needs {@code trustPem} (TLS) and {@code clientKeyPem}
   * @param clientKeyPem its private key (PEM); never printed
   * @param pingIntervalMillis the client pings this often; no frame for 3 intervals closes the
   *     connection (a silent network partition) and redials
   */
  @RecordBuilder
  public record Options(
      String host,
      int port,
      String token,
      String node,
      String group,
      String trustPem,
      String clientCertPem,
      String clientKeyPem,
      long initialBackoffMillis,
      long maxBackoffMillis,
      double jitter,
      long pingIntervalMillis,
      int connectTimeoutMillis) {
    public Options {
      Objects.requireNonNull(host, "host");
      if (token == null || token.isBlank()) {
        throw new IllegalArgumentException("a control-plane token is required");
      }
      if (node == null || node.isBlank()) {
        throw new IllegalArgumentException("a node name is required");
      }
      if (group != null && !ControlPlaneProtocol.validGroup(group)) {
        throw new IllegalArgumentException(
            "a data-plane group is a DNS label (lower case letters, digits, '-', at most 63): "
                + group);
      }
      if (pingIntervalMillis <= 0 || connectTimeoutMillis <= 0) {
        throw new IllegalArgumentException("intervals must be positive");
      }
      if ((clientCertPem == null) != (clientKeyPem == null)) {
        throw new IllegalArgumentException(
            "a client certificate needs its private key, and a key its certificate");
      }
      if (clientCertPem != null && trustPem == null) {
        throw new IllegalArgumentException(
            "a client certificate (mutual TLS) needs TLS: the operator's CA (trustPem)");
      }
    }

    /** Plain TCP, backoff 100 ms doubling to 5 s with +/-20% jitter, a ping every 10 s. */
    public static Options of(String host, int port, String token, String node) {
      return new Options(
          host, port, token, node, null, null, null, null, 100, 5_000, 0.2, 10_000, 5_000);
    }

    /** Serves this data-plane group: the operator sends only the pools of this group. */
    public Options withGroup(String name) {
      return edit().group(name).build();
    }

    public Options withTrustPem(String pem) {
      return edit().trustPem(pem).build();
    }

    /**
     * Presents this certificate (PEM, with any intermediates) and key to the operator, for an
     * operator that requires client certificates; needs {@link #withTrustPem} too.
     */
    public Options withClientCertificate(String certPem, String keyPem) {
      return edit().clientCertPem(certPem).clientKeyPem(keyPem).build();
    }

    public Options withBackoff(long initialMillis, long maxMillis) {
      return edit().initialBackoffMillis(initialMillis).maxBackoffMillis(maxMillis).build();
    }

    public Options withPingInterval(long millis) {
      return edit().pingIntervalMillis(millis).build();
    }

    private ControlPlaneClientOptionsBuilder edit() {
      return ControlPlaneClientOptionsBuilder.builder(this);
    }

    /** True when a client certificate is presented. */
    public boolean mutualTls() {
      return clientCertPem != null;
    }

    @Override
    public String toString() {
      return "Options["
          + host
          + ":"
          + port
          + ", node="
          + node
          + (group == null ? "" : ", group=" + group)
          + ", tls="
          + (trustPem != null)
          + ", mutualTls="
          + mutualTls()
          + "]";
    }
  }

  private final Vertx vertx;
  private final Context context;
  private final Options options;
  private final Backoff backoff;
  private final WebSocketClient wsClient;
  private final ApplyQueue queue;
  private final List<Consumer<Boolean>> connectionListeners = new CopyOnWriteArrayList<>();
  // Everything below is touched on `context` only.
  private WebSocket ws;
  private boolean started;
  private boolean stopped;
  private long reconnectTimer = -1;
  private long pingTimer = -1;
  private volatile boolean connected;
  private volatile String lastError;

  public ControlPlaneClient(Vertx vertx, Options options, SnapshotApplier applier, Random random) {
    this.vertx = Objects.requireNonNull(vertx);
    this.options = Objects.requireNonNull(options);
    this.backoff =
        new Backoff(
            options.initialBackoffMillis(), options.maxBackoffMillis(), options.jitter(), random);
    this.context = vertx.getOrCreateContext();
    this.queue = new ApplyQueue(context, Objects.requireNonNull(applier), () -> ws);
    this.wsClient = vertx.createWebSocketClient(ClientSecurity.clientOptions(options));
  }

  /** Starts dialing; returns at once. */
  public void start() {
    context.runOnContext(
        v -> {
          if (!started && !stopped) {
            started = true;
            dial();
          }
        });
  }

  /** Closes the stream and stops redialing. What was applied stays applied. */
  public Future<Void> stop() {
    Promise<Void> done = Promise.promise();
    context.runOnContext(
        v -> {
          stopped = true;
          cancelTimers();
          WebSocket current = ws;
          ws = null;
          setConnected(false);
          Future<Void> closing = current == null ? Future.succeededFuture() : current.close();
          closing.transform(ar -> wsClient.close()).onComplete(ar -> done.complete());
        });
    return done.future();
  }

  /** True while the stream is open (after hello was sent). */
  public boolean connected() {
    return connected;
  }

  /** Why the last dial or stream failed, null when none did. */
  public String lastError() {
    return lastError;
  }

  /** Called with true on connect and false on disconnect, on the client's event loop. */
  public void onConnectionChange(Consumer<Boolean> listener) {
    connectionListeners.add(Objects.requireNonNull(listener));
  }

  private void dial() {
    if (stopped) {
      return;
    }
    wsClient
        .connect(ClientSecurity.connectOptions(options))
        .onComplete(
            ar -> {
              if (ar.failed()) {
                lastError = String.valueOf(ar.cause().getMessage());
                log.debug(
                    "control plane {}:{} unreachable: {}",
                    options.host(),
                    options.port(),
                    lastError);
                scheduleRedial();
              } else if (stopped) {
                ar.result().close();
              } else {
                opened(ar.result());
              }
            });
  }

  private void opened(WebSocket socket) {
    ws = socket;
    queue.streamOpened();
    socket.textMessageHandler(text -> onText(socket, text));
    socket.binaryMessageHandler(b -> log.warn("ignoring a binary frame from the control plane"));
    socket.exceptionHandler(t -> lastError = String.valueOf(t.getMessage()));
    socket.closeHandler(v -> closed(socket));
    socket.writeTextMessage(WireCodec.encode(StreamMessage.hello(options.node(), options.group())));
    backoff.reset();
    lastError = null;
    pingTimer =
        vertx.setPeriodic(
            options.pingIntervalMillis(),
            id -> {
              if (!socket.isClosed()) {
                socket.writePing(Buffer.buffer());
              }
            });
    log.info(
        "connected to control plane {}:{} as {}", options.host(), options.port(), options.node());
    setConnected(true);
  }

  private void closed(WebSocket socket) {
    if (ws != socket) {
      return;
    }
    ws = null;
    if (socket.closeReason() != null && !socket.closeReason().isBlank()) {
      // Say why the operator closed it (e.g. a token or certificate of another group).
      lastError =
          "closed by the control plane: " + socket.closeStatusCode() + " " + socket.closeReason();
    }
    if (pingTimer >= 0) {
      vertx.cancelTimer(pingTimer);
      pingTimer = -1;
    }
    log.warn(
        "control-plane stream closed (status {} {}); keeping the last applied snapshots",
        socket.closeStatusCode(),
        socket.closeReason());
    setConnected(false);
    scheduleRedial();
  }

  private void scheduleRedial() {
    if (stopped) {
      return;
    }
    long delay = backoff.nextDelayMillis();
    reconnectTimer =
        vertx.setTimer(
            delay,
            id -> {
              reconnectTimer = -1;
              dial();
            });
  }

  private void cancelTimers() {
    if (reconnectTimer >= 0) {
      vertx.cancelTimer(reconnectTimer);
      reconnectTimer = -1;
    }
    if (pingTimer >= 0) {
      vertx.cancelTimer(pingTimer);
      pingTimer = -1;
    }
  }

  private void setConnected(boolean value) {
    if (connected == value) {
      return;
    }
    connected = value;
    for (Consumer<Boolean> l : connectionListeners) {
      try {
        l.accept(value);
      } catch (RuntimeException e) {
        log.warn("connection listener failed", e);
      }
    }
  }

  private void onText(WebSocket socket, String text) {
    StreamMessage m;
    try {
      m = WireCodec.decode(text);
    } catch (WireCodec.MalformedFrameException e) {
      log.warn("ignoring a malformed frame from the control plane: {}", e.getMessage());
      return;
    }
    if (m.type() != StreamMessage.Type.snapshot
        && m.type() != StreamMessage.Type.remove
        && m.type() != StreamMessage.Type.synced) {
      log.warn("ignoring a {} frame from the control plane", m.type());
      return;
    }
    queue.add(socket, m);
  }
}
