package dev.replicapool.controlplane;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.StreamMessage;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.net.PemTrustOptions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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
 */
public final class ControlPlaneClient {
  private static final Logger log = LoggerFactory.getLogger(ControlPlaneClient.class);

  /**
   * @param trustPem PEM certificates that sign the operator's certificate; null for plain TCP
   * @param pingIntervalMillis the client pings this often; no frame for 3 intervals closes the
   *     connection (a silent network partition) and redials
   */
  public record Options(
      String host,
      int port,
      String token,
      String node,
      String trustPem,
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
      if (pingIntervalMillis <= 0 || connectTimeoutMillis <= 0) {
        throw new IllegalArgumentException("intervals must be positive");
      }
    }

    /** Plain TCP, backoff 100 ms doubling to 5 s with +/-20% jitter, a ping every 10 s. */
    public static Options of(String host, int port, String token, String node) {
      return new Options(host, port, token, node, null, 100, 5_000, 0.2, 10_000, 5_000);
    }

    public Options withTrustPem(String pem) {
      return new Options(
          host,
          port,
          token,
          node,
          pem,
          initialBackoffMillis,
          maxBackoffMillis,
          jitter,
          pingIntervalMillis,
          connectTimeoutMillis);
    }

    public Options withBackoff(long initialMillis, long maxMillis) {
      return new Options(
          host,
          port,
          token,
          node,
          trustPem,
          initialMillis,
          maxMillis,
          jitter,
          pingIntervalMillis,
          connectTimeoutMillis);
    }

    public Options withPingInterval(long millis) {
      return new Options(
          host,
          port,
          token,
          node,
          trustPem,
          initialBackoffMillis,
          maxBackoffMillis,
          jitter,
          millis,
          connectTimeoutMillis);
    }

    @Override
    public String toString() {
      return "Options["
          + host
          + ":"
          + port
          + ", node="
          + node
          + ", tls="
          + (trustPem != null)
          + "]";
    }
  }

  private final Vertx vertx;
  private final Context context;
  private final Options options;
  private final SnapshotApplier applier;
  private final Backoff backoff;
  private final WebSocketClient wsClient;
  private final List<Consumer<Boolean>> connectionListeners = new CopyOnWriteArrayList<>();
  // Everything below is touched on `context` only.
  private final Map<String, Long> applied = new HashMap<>();
  private Future<Void> tail = Future.succeededFuture();
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
    this.applier = Objects.requireNonNull(applier);
    this.backoff =
        new Backoff(
            options.initialBackoffMillis(), options.maxBackoffMillis(), options.jitter(), random);
    this.context = vertx.getOrCreateContext();
    WebSocketClientOptions o =
        new WebSocketClientOptions()
            .setMaxFrameSize(ControlPlaneProtocol.MAX_FRAME_BYTES)
            .setMaxMessageSize(ControlPlaneProtocol.MAX_FRAME_BYTES)
            .setConnectTimeout(options.connectTimeoutMillis())
            .setReadIdleTimeout((int) (3 * options.pingIntervalMillis()))
            .setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
    if (options.trustPem() != null) {
      o.setSsl(true)
          .setVerifyHost(true)
          .setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(options.trustPem())));
    }
    this.wsClient = vertx.createWebSocketClient(o);
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
    WebSocketConnectOptions o =
        new WebSocketConnectOptions()
            .setHost(options.host())
            .setPort(options.port())
            .setURI(ControlPlaneProtocol.STREAM_PATH)
            .setSsl(options.trustPem() != null)
            .putHeader(ControlPlaneProtocol.AUTHORIZATION, "Bearer " + options.token().strip());
    wsClient
        .connect(o)
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
    socket.textMessageHandler(text -> onText(socket, text));
    socket.binaryMessageHandler(b -> log.warn("ignoring a binary frame from the control plane"));
    socket.exceptionHandler(t -> lastError = String.valueOf(t.getMessage()));
    socket.closeHandler(v -> closed(socket));
    socket.writeTextMessage(WireCodec.encode(StreamMessage.hello(options.node())));
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
    if (m.type() == StreamMessage.Type.synced) {
      // After the frames before it were applied: "synced" vouches for them.
      tail =
          tail.transform(
              ar -> {
                applier.synced();
                return Future.<Void>succeededFuture();
              });
      return;
    }
    if (m.type() != StreamMessage.Type.snapshot && m.type() != StreamMessage.Type.remove) {
      log.warn("ignoring a {} frame from the control plane", m.type());
      return;
    }
    // One frame at a time, in order: the next waits for the previous apply to finish.
    tail = tail.transform(ar -> handle(socket, m));
  }

  private Future<Void> handle(WebSocket socket, StreamMessage m) {
    Future<StreamMessage> answer;
    try {
      answer = m.type() == StreamMessage.Type.snapshot ? snapshot(m) : remove(m);
    } catch (RuntimeException e) {
      log.warn("applying a {} frame failed", m.type(), e);
      answer = Future.succeededFuture(nack(m, "data plane failed: " + e));
    }
    return answer
        .map(
            reply -> {
              if (reply != null && !socket.isClosed()) {
                socket.writeTextMessage(WireCodec.encode(reply));
              }
              return (Void) null;
            })
        .otherwiseEmpty();
  }

  private Future<StreamMessage> snapshot(StreamMessage m) {
    PoolSnapshot s = m.snapshot();
    if (s == null) {
      return Future.succeededFuture(nack(m, "snapshot frame without a snapshot"));
    }
    if (m.pool() != null && !m.pool().equals(s.pool())) {
      return Future.succeededFuture(
          StreamMessage.nack(m.pool(), s.version(), "frame pool differs from snapshot pool"));
    }
    String pool = s.pool();
    long version = s.version();
    if (pool == null) {
      log.warn("ignoring a snapshot without a pool name");
      return Future.succeededFuture(null);
    }
    Long done = applied.get(pool);
    if (done != null && version < done) {
      return Future.succeededFuture(
          StreamMessage.nack(
              pool,
              version,
              "version " + version + " is older than the applied version " + done + "; ignored"));
    }
    if (done != null && version == done) {
      return Future.succeededFuture(StreamMessage.ack(pool, version));
    }
    List<String> problems = s.problems();
    if (!problems.isEmpty()) {
      return Future.succeededFuture(
          StreamMessage.nack(pool, version, "invalid snapshot: " + String.join("; ", problems)));
    }
    return safely(() -> applier.apply(s))
        .map(
            v -> {
              applied.put(pool, version);
              return StreamMessage.ack(pool, version);
            })
        .otherwise(t -> StreamMessage.nack(pool, version, reason(t)));
  }

  private Future<StreamMessage> remove(StreamMessage m) {
    if (m.pool() == null || m.version() == null) {
      log.warn("ignoring a remove frame without pool or version");
      return Future.succeededFuture(null);
    }
    String pool = m.pool();
    long version = m.version();
    Long done = applied.get(pool);
    if (done != null && version < done) {
      return Future.succeededFuture(
          StreamMessage.nack(
              pool,
              version,
              "removal version " + version + " is older than the applied version " + done));
    }
    if (done != null && version == done) {
      return Future.succeededFuture(StreamMessage.ack(pool, version));
    }
    return safely(() -> applier.remove(pool, version))
        .map(
            v -> {
              applied.put(pool, version);
              return StreamMessage.ack(pool, version);
            })
        .otherwise(t -> StreamMessage.nack(pool, version, reason(t)));
  }

  private static Future<Void> safely(java.util.function.Supplier<Future<Void>> call) {
    try {
      Future<Void> f = call.get();
      return f == null ? Future.failedFuture("applier returned no result") : f;
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  private static StreamMessage nack(StreamMessage m, String error) {
    if (m.pool() == null) {
      return null; // nothing to answer about: the operator never sends such frames
    }
    return StreamMessage.nack(m.pool(), m.version() == null ? 0 : m.version(), error);
  }

  private static String reason(Throwable t) {
    String msg = t.getMessage();
    return msg == null || msg.isBlank() ? t.getClass().getSimpleName() : msg;
  }
}
