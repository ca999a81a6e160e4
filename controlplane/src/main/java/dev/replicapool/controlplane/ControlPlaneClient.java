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
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
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
  private final SnapshotApplier applier;
  private final Backoff backoff;
  private final WebSocketClient wsClient;
  private final List<Consumer<Boolean>> connectionListeners = new CopyOnWriteArrayList<>();
  // Everything below is touched on `context` only.
  private final Map<String, Long> applied = new HashMap<>();
  private final ArrayDeque<Received> received = new ArrayDeque<>();
  // Pools named by a frame of the current stream: what the operator knows, once it says synced.
  private final Set<String> heardOf = new HashSet<>();
  // Pools whose last applied change was a removal (their version stays in `applied`).
  private final Set<String> removedPools = new HashSet<>();
  private boolean draining;
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
    if (options.clientCertPem() != null) {
      o.setKeyCertOptions(
          new PemKeyCertOptions()
              .setCertValue(Buffer.buffer(options.clientCertPem()))
              .setKeyValue(Buffer.buffer(options.clientKeyPem())));
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
    heardOf.clear();
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
    if (socket == ws && m.type() != StreamMessage.Type.synced) {
      String pool = poolOf(m);
      if (pool != null) {
        heardOf.add(pool);
      }
    }
    received.add(new Received(socket, m));
    if (!draining) {
      // Not now: after this read's other frames have been delivered, so that frames that arrive
      // together are applied together (one table swap for a burst, see SnapshotApplier#applyAll).
      draining = true;
      context.runOnContext(v -> drain());
    }
  }

  /**
   * Hands the frames received so far to the applier as one batch and answers each. A batch ends
   * before a {@code synced} frame (which vouches for the frames before it, so it waits for them)
   * and before a second frame for the same pool (which must see the first one's outcome). The next
   * batch starts when this one is answered: one batch at a time, in order.
   */
  private void drain() {
    List<Step> steps = new ArrayList<>();
    Set<String> pools = new HashSet<>();
    while (!received.isEmpty()) {
      Received r = received.peek();
      if (r.message().type() == StreamMessage.Type.synced) {
        if (!steps.isEmpty()) {
          break;
        }
        received.poll();
        if (Boolean.TRUE.equals(r.message().complete())
            && forgetPoolsTheOperatorNoLongerHas(r.socket())) {
          return; // the removals finish first, then synced, then the rest of the queue
        }
        applier.synced();
        continue;
      }
      String pool = poolOf(r.message());
      if (pool != null && !pools.add(pool)) {
        break;
      }
      received.poll();
      steps.add(step(r));
    }
    if (steps.isEmpty()) {
      draining = false;
      return;
    }
    List<SnapshotApplier.Change> changes = new ArrayList<>();
    for (Step st : steps) {
      if (st.change() != null) {
        changes.add(st.change());
      }
    }
    List<Future<Void>> results = applyAll(changes);
    Future.join(results)
        .onComplete(
            done -> {
              // One frame for the answers of a batch: a write (and a syscall) per answer costs
              // about a fifth of the data plane's time when 1,000 pools arrive at once
              // (docs/BENCHMARKS.md, item 6).
              Map<WebSocket, List<StreamMessage>> bySocket = new java.util.LinkedHashMap<>();
              int next = 0;
              for (Step st : steps) {
                StreamMessage answer =
                    st.change() == null ? st.answer() : answer(st.change(), results.get(next++));
                if (answer != null) {
                  bySocket.computeIfAbsent(st.frame().socket(), k -> new ArrayList<>()).add(answer);
                }
              }
              bySocket.forEach(ControlPlaneClient::send);
              // Through the context, not a direct call: a long queue must not deepen the stack.
              context.runOnContext(v -> drain());
            });
  }

  /**
   * Before {@code synced}, the operator has sent every pool it knows on this stream. A pool this
   * data plane still serves but did not hear of was deleted while the two were apart (operator
   * down, stream cut): nothing else would ever remove it, so it is removed here, then {@code
   * synced} is passed on.
   *
   * @return true when removals are under way (they call {@code synced} and drain on when done)
   */
  private boolean forgetPoolsTheOperatorNoLongerHas(WebSocket socket) {
    if (socket != ws) {
      return false; // a stale stream's word on what exists does not count
    }
    List<SnapshotApplier.Change> removals = new ArrayList<>();
    for (Map.Entry<String, Long> e : new ArrayList<>(applied.entrySet())) {
      String pool = e.getKey();
      if (heardOf.contains(pool)) {
        continue;
      }
      if (removedPools.remove(pool)) {
        applied.remove(pool); // removed already; the operator has forgotten the removal too
      } else {
        removals.add(SnapshotApplier.Change.remove(pool, e.getValue()));
      }
    }
    if (removals.isEmpty()) {
      return false;
    }
    List<Future<Void>> results = applyAll(removals);
    Future.join(results)
        .onComplete(
            done -> {
              for (int i = 0; i < removals.size(); i++) {
                String pool = removals.get(i).pool();
                if (results.get(i).succeeded()) {
                  applied.remove(pool);
                  log.info("removed pool {}: the operator no longer has it", pool);
                } else {
                  log.warn(
                      "could not remove pool {}, which the operator no longer has: {}",
                      pool,
                      reason(results.get(i).cause()));
                }
              }
              applier.synced();
              context.runOnContext(v -> drain());
            });
    return true;
  }

  /** At most this many answers in one {@code answers} frame (well inside the frame limit). */
  static final int MAX_ANSWERS_PER_FRAME = 1_000;

  private static void send(WebSocket socket, List<StreamMessage> answers) {
    if (socket.isClosed()) {
      return;
    }
    if (answers.size() == 1) {
      socket.writeTextMessage(WireCodec.encode(answers.get(0)));
      return;
    }
    for (int from = 0; from < answers.size(); from += MAX_ANSWERS_PER_FRAME) {
      List<StreamMessage> part =
          answers.subList(from, Math.min(answers.size(), from + MAX_ANSWERS_PER_FRAME));
      socket.writeTextMessage(WireCodec.encode(StreamMessage.answers(part)));
    }
  }

  private List<Future<Void>> applyAll(List<SnapshotApplier.Change> changes) {
    if (changes.isEmpty()) {
      return List.of();
    }
    List<Future<Void>> results;
    try {
      results = applier.applyAll(changes);
    } catch (RuntimeException e) {
      log.warn("applying {} frames failed", changes.size(), e);
      results = null;
    }
    if (results == null || results.size() != changes.size()) {
      Future<Void> failed = Future.failedFuture("data plane failed to apply the snapshots");
      return java.util.Collections.nCopies(changes.size(), failed);
    }
    List<Future<Void>> safe = new ArrayList<>(results.size());
    for (Future<Void> f : results) {
      safe.add(f == null ? Future.failedFuture("applier returned no result") : f);
    }
    return safe;
  }

  /** The ACK or NACK for a change the applier has finished with. */
  private StreamMessage answer(SnapshotApplier.Change change, Future<Void> result) {
    String pool = change.pool();
    long version = change.version();
    if (result.succeeded()) {
      applied.put(pool, version);
      if (change.isRemoval()) {
        removedPools.add(pool);
      } else {
        removedPools.remove(pool);
      }
      return StreamMessage.ack(pool, version);
    }
    return StreamMessage.nack(pool, version, reason(result.cause()));
  }

  private static String poolOf(StreamMessage m) {
    if (m.type() == StreamMessage.Type.snapshot && m.snapshot() != null) {
      return m.snapshot().pool();
    }
    return m.pool();
  }

  /** A frame received and not yet handled, with the stream it came on (answers go back there). */
  private record Received(WebSocket socket, StreamMessage message) {}

  /** A frame's fate: answered at once ({@code answer}, may be null), or a change to apply. */
  private record Step(Received frame, StreamMessage answer, SnapshotApplier.Change change) {
    static Step answer(Received frame, StreamMessage answer) {
      return new Step(frame, answer, null);
    }

    static Step apply(Received frame, SnapshotApplier.Change change) {
      return new Step(frame, null, change);
    }
  }

  private Step step(Received r) {
    StreamMessage m = r.message();
    return m.type() == StreamMessage.Type.snapshot ? snapshot(r) : remove(r);
  }

  private Step snapshot(Received r) {
    StreamMessage m = r.message();
    PoolSnapshot s = m.snapshot();
    if (s == null) {
      return Step.answer(r, nack(m, "snapshot frame without a snapshot"));
    }
    if (m.pool() != null && !m.pool().equals(s.pool())) {
      return Step.answer(
          r, StreamMessage.nack(m.pool(), s.version(), "frame pool differs from snapshot pool"));
    }
    String pool = s.pool();
    long version = s.version();
    if (pool == null) {
      log.warn("ignoring a snapshot without a pool name");
      return Step.answer(r, null);
    }
    Long done = applied.get(pool);
    if (done != null && version < done) {
      return Step.answer(
          r,
          StreamMessage.nack(
              pool,
              version,
              "version " + version + " is older than the applied version " + done + "; ignored"));
    }
    if (done != null && version == done) {
      return Step.answer(r, StreamMessage.ack(pool, version));
    }
    List<String> problems = s.problems();
    if (!problems.isEmpty()) {
      return Step.answer(
          r, StreamMessage.nack(pool, version, "invalid snapshot: " + String.join("; ", problems)));
    }
    return Step.apply(r, SnapshotApplier.Change.apply(s));
  }

  private Step remove(Received r) {
    StreamMessage m = r.message();
    if (m.pool() == null || m.version() == null) {
      log.warn("ignoring a remove frame without pool or version");
      return Step.answer(r, null);
    }
    String pool = m.pool();
    long version = m.version();
    Long done = applied.get(pool);
    if (done != null && version < done) {
      return Step.answer(
          r,
          StreamMessage.nack(
              pool,
              version,
              "removal version " + version + " is older than the applied version " + done));
    }
    if (done != null && version == done) {
      return Step.answer(r, StreamMessage.ack(pool, version));
    }
    return Step.apply(r, SnapshotApplier.Change.remove(pool, version));
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
