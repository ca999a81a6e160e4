package dev.replicapool.operator.probing;

import dev.replicapool.api.v1alpha1.HealthCheckType;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.RequestOptions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Active health probes for every member of every pool, on one event loop: when each member is
 * probed, how many probes run at once, and when one has taken too long. What a probe does is its
 * {@link HealthChecker}'s business ({@link HttpHealthChecker}, {@link GrpcHealthChecker}, {@link
 * TcpHealthChecker}), on shared non-blocking Vert.x clients.
 *
 * <p>Longer than the project's usual class: scheduling, the two limits and the timeout share the
 * per-member state below and the event-loop-only counters; split, each part would reach into the
 * others' fields.
 *
 * <ul>
 *   <li>Each member is probed every interval; its first probe comes at a random offset within the
 *       interval, so that members added together (a new pool, an operator restart) spread out
 *       instead of bursting, and later probes keep that phase.
 *   <li>At most one probe per member is in flight: a probe due while the previous one still runs is
 *       skipped (counted in {@link Stats#skipped()}); and at most {@link Options#maxInFlight()} of
 *       all members together, and at most {@link Options#maxConnecting()} that must connect first;
 *       beyond these, probes are shed ({@link Stats#shed()}), not failed.
 *   <li>Success is the checker's (an expected HTTP status whose body has arrived, a gRPC SERVING, a
 *       TCP connect) within the timeout. A probe still running at the timeout is reported failed
 *       ("timeout after 100ms") and aborted, which resets its request or abandons its connect (a
 *       TCP connect gives up after 10 s).
 *   <li>HTTP and gRPC checks keep their connection alive (one per member and TLS setting), so a
 *       probe costs one request, not a TCP handshake: 10,000 members at 1 s are 10,000 requests/s,
 *       not 10,000 connects/s. A TCP check is a connect each time.
 *   <li>A kept-alive connection the member closes unexpectedly (the kernel closes the sockets of a
 *       process that died) triggers a probe at once, so a crash is seen in milliseconds, not at the
 *       next interval; {@link PeerCloseWatch} tells which closes count. A silent death (freeze,
 *       partition) still takes interval + timeout.
 * </ul>
 *
 * <p>Scheduling is either a {@link Scheduling#WHEEL hashed timing wheel} driven by one Vert.x
 * periodic timer (the default: it measured cheaper, see docs/BENCH-PROBING.md), or {@link
 * Scheduling#TIMERS one Vert.x periodic per member plus one timer per probe}.
 *
 * <p>{@link #track}, {@link #untrack} and {@link #retune} may be called from any thread; the
 * listener is called on the prober's event loop.
 */
public final class Prober implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Prober.class);

  /**
   * TCP connect attempts end after this; a probe fails at its own timeout long before. Not
   * RequestOptions' connect timeout: in Vert.x 5 that bounds the wait for a pooled connection, and
   * a connection established after that wait gave up was left open outside the pool (measured: a
   * burst of 1,500 first probes left 477 such sockets).
   */
  static final int CONNECT_TIMEOUT_MILLIS = 10_000;

  /** An idle pooled connection is closed after this. */
  static final int KEEP_ALIVE_SECONDS = 60;

  /** How probes and timeouts are scheduled on the event loop. */
  public enum Scheduling {
    /** One periodic tick drives a hashed timing wheel of due probes and timeouts. */
    WHEEL,
    /** One Vert.x periodic timer per member and one Vert.x timer per probe's timeout. */
    TIMERS
  }

  /**
   * @param tickMillis wheel resolution: probes start and time out up to this late
   * @param maxInFlight probes in flight at once, all members together; a probe due beyond it is
   *     shed (no result, so no failure: an overloaded prober must not eject healthy members)
   * @param maxConnecting probes in flight that must open a connection first (a new member, or one
   *     whose last probe failed); beyond it they are shed too. This keeps an operator start with
   *     10,000 members from opening 10,000 connections in one interval, which on a busy machine
   *     turns into timeouts, resets and more connects.
   * @param userAgent User-Agent header of every probe
   */
  public record Options(
      Scheduling scheduling,
      long tickMillis,
      int maxInFlight,
      int maxConnecting,
      String userAgent) {
    public static Options defaults() {
      return new Options(Scheduling.WHEEL, 5, 4096, 128, "replicapool-prober/1");
    }

    public Options withScheduling(Scheduling s) {
      return new Options(s, tickMillis, maxInFlight, maxConnecting, userAgent);
    }

    public Options withMaxInFlight(int max) {
      return new Options(scheduling, tickMillis, max, maxConnecting, userAgent);
    }

    public Options withMaxConnecting(int max) {
      return new Options(scheduling, tickMillis, maxInFlight, max, userAgent);
    }
  }

  /** Counters since start; {@code tracked} and {@code inFlight} are current. */
  public record Stats(
      int tracked,
      int inFlight,
      long started,
      long succeeded,
      long failed,
      long timedOut,
      long skipped,
      long shed) {}

  private final Vertx vertx;
  private final Context context;
  private final ProbeClients clients;
  private final HttpHealthChecker http;
  private final GrpcHealthChecker grpc;
  private final TcpHealthChecker tcp;
  private final Options options;
  private final ConcurrentHashMap<MemberKey, Target> targets = new ConcurrentHashMap<>();
  private final long originNanos = System.nanoTime();
  private final TimingWheel wheel;
  private final long wheelTimerId;
  private volatile ProbeListener listener;
  private volatile boolean closed;
  private boolean warm;
  private final List<Target> waitingForWarmUp = new ArrayList<>();
  private final PeerCloseWatch peerCloses =
      new PeerCloseWatch(this::nowMillis, KEEP_ALIVE_SECONDS * 1000L);

  // Written on the event loop only; volatile for readers of stats().
  private volatile int inFlight;
  private int connecting;
  private volatile long started;
  private volatile long succeeded;
  private volatile long failed;
  private volatile long timedOut;
  private volatile long skipped;
  private volatile long shed;

  /** A prober with the default options and no listener yet (see {@link #setListener}). */
  public Prober(Vertx vertx) {
    this(vertx, r -> {}, Options.defaults());
  }

  public Prober(Vertx vertx, ProbeListener listener) {
    this(vertx, listener, Options.defaults());
  }

  public Prober(Vertx vertx, ProbeListener listener, Options options) {
    this.vertx = Objects.requireNonNull(vertx);
    this.listener = Objects.requireNonNull(listener);
    this.options = Objects.requireNonNull(options);
    this.context = vertx.getOrCreateContext();
    // The same address in two pools shares a connection, one probe after the other.
    this.clients = new ProbeClients(vertx);
    this.http = new HttpHealthChecker(clients, options.userAgent());
    this.grpc = new GrpcHealthChecker(clients, options.userAgent());
    this.tcp = new TcpHealthChecker(vertx);
    if (options.scheduling() == Scheduling.WHEEL) {
      this.wheel = new TimingWheel(options.tickMillis(), 4096, nowMillis());
      Handler<Long> tick = id -> wheel.advance(nowMillis());
      if (Vertx.currentContext() == context) {
        this.wheelTimerId = vertx.setPeriodic(options.tickMillis(), tick);
      } else {
        // A periodic set from outside the context would fire on another event loop.
        CompletableFuture<Long> id = new CompletableFuture<>();
        context.runOnContext(v -> id.complete(vertx.setPeriodic(options.tickMillis(), tick)));
        this.wheelTimerId = id.join();
      }
    } else {
      this.wheel = null;
      this.wheelTimerId = -1;
    }
    context.runOnContext(v -> warmUp());
  }

  /** Replaces the listener; results of probes finishing afterwards go to the new one. */
  public void setListener(ProbeListener listener) {
    this.listener = Objects.requireNonNull(listener);
  }

  /** {@link #track(MemberKey, String, int, ProbeSpec, long, long)} with an HTTP/1.1 GET of path. */
  public void track(
      MemberKey key, String host, int port, String path, long intervalMillis, long timeoutMillis) {
    track(key, host, port, ProbeSpec.http(path), intervalMillis, timeoutMillis);
  }

  /**
   * Starts checking the member at {@code host:port} as {@code spec} says every {@code
   * intervalMillis}, or changes the member's check or timing when it is already tracked (then with
   * a new random phase). Calling it again with the same values changes nothing, so a reconcile may
   * call it for every member.
   */
  public void track(
      MemberKey key,
      String host,
      int port,
      ProbeSpec spec,
      long intervalMillis,
      long timeoutMillis) {
    if (intervalMillis < 1 || timeoutMillis < 1) {
      throw new IllegalArgumentException("interval and timeout must be positive");
    }
    if (closed) {
      return; // shutting down: nothing to probe any more
    }
    Target fresh = new Target(key, host, port, spec, intervalMillis, timeoutMillis);
    Target current = targets.get(key);
    if (current != null && current.sameAs(fresh)) {
      return;
    }
    Target previous = targets.put(key, fresh);
    context.runOnContext(
        v -> {
          if (previous != null) {
            stop(previous);
          }
          if (targets.get(key) == fresh && !closed) {
            start(fresh);
          }
        });
  }

  /** {@link #track(MemberKey, String, int, String, long, long)} by pool and address. */
  public void track(
      String pool,
      String address,
      String host,
      int port,
      String path,
      long intervalMillis,
      long timeoutMillis) {
    track(new MemberKey(pool, address), host, port, path, intervalMillis, timeoutMillis);
  }

  /** New interval and timeout for a tracked member; false when it is not tracked. */
  public boolean retune(MemberKey key, long intervalMillis, long timeoutMillis) {
    Target t = targets.get(key);
    if (t == null) {
      return false;
    }
    track(key, t.host, t.port, t.spec, intervalMillis, timeoutMillis);
    return true;
  }

  /** Stops probing the member; a probe in flight is reset and its result dropped. */
  public void untrack(MemberKey key) {
    Target t = targets.remove(key);
    if (t != null) {
      context.runOnContext(v -> stop(t));
    }
  }

  /** {@link #untrack(MemberKey)} by pool and address. */
  public void untrack(String pool, String address) {
    untrack(new MemberKey(pool, address));
  }

  /** Stops probing every member of the pool. */
  public void untrackPool(String pool) {
    List<MemberKey> keys = new ArrayList<>();
    targets
        .keySet()
        .forEach(
            k -> {
              if (k.pool().equals(pool)) {
                keys.add(k);
              }
            });
    keys.forEach(this::untrack);
  }

  public Set<MemberKey> tracked() {
    return Set.copyOf(targets.keySet());
  }

  public Stats stats() {
    return new Stats(targets.size(), inFlight, started, succeeded, failed, timedOut, skipped, shed);
  }

  public Options options() {
    return options;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    List<Target> all = new ArrayList<>(targets.values());
    targets.clear();
    CompletableFuture<Void> stopped = new CompletableFuture<>();
    context.runOnContext(
        v -> {
          all.forEach(this::stop);
          if (wheelTimerId >= 0) {
            vertx.cancelTimer(wheelTimerId);
          }
          Future.join(clients.close(), tcp.close()).onComplete(ar -> stopped.complete(null));
        });
    if (Vertx.currentContext() == null) {
      try {
        stopped.get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.debug("prober close: {}", e.toString());
      }
    }
  }

  /**
   * Sends a few requests through the HTTP/1.1 and h2c clients to a throwaway server on 127.0.0.1
   * before the first real probe: a cold JVM spends a few hundred milliseconds loading the HTTP
   * stack, which would fail the first probes of every member under a tight timeout (S1's 100 ms)
   * and eject healthy members at operator start. Capped at 3 s; probes start afterwards whatever
   * happened.
   */
  private void warmUp() {
    Promise<Void> done = Promise.promise();
    long cap = vertx.setTimer(3_000, id -> done.tryComplete());
    vertx
        .createHttpServer()
        .requestHandler(r -> r.response().end("ok"))
        .listen(0, "127.0.0.1")
        .compose(
            server -> {
              RequestOptions o =
                  new RequestOptions()
                      .setHost("127.0.0.1")
                      .setPort(server.actualPort())
                      .setURI("/warm-up");
              Future<Void> chain = Future.succeededFuture();
              // HTTP/1.1 and HTTP/2 (h2c: gRPC checks) each have their own code to load.
              for (ProbeSpec.Transport transport :
                  List.of(ProbeSpec.Transport.H1, ProbeSpec.Transport.H2C)) {
                HttpClient client = clients.client(transport);
                for (int i = 0; i < 20; i++) {
                  chain =
                      chain.compose(
                          v ->
                              client
                                  .request(o)
                                  .compose(HttpClientRequest::send)
                                  .compose(HttpClientResponse::end));
                }
              }
              return chain.eventually(server::close);
            })
        .onComplete(
            ar -> {
              if (ar.failed()) {
                LOG.debug("prober warm-up: {}", ar.cause().toString());
              }
              vertx.cancelTimer(cap);
              done.tryComplete();
            });
    done.future()
        .onComplete(
            ar -> {
              warm = true;
              List<Target> waiting = new ArrayList<>(waitingForWarmUp);
              waitingForWarmUp.clear();
              waiting.stream().filter(t -> t.active && !closed).forEach(this::start);
            });
  }

  private HealthChecker checker(HealthCheckType type) {
    return switch (type) {
      case HTTP -> http;
      case GRPC -> grpc;
      case TCP -> tcp;
    };
  }

  private long nowMillis() {
    return (System.nanoTime() - originNanos) / 1_000_000;
  }

  private void start(Target t) {
    if (!warm) {
      waitingForWarmUp.add(t);
      return;
    }
    long offset = ThreadLocalRandom.current().nextLong(t.interval);
    if (wheel != null) {
      t.nextDue = nowMillis() + offset;
      t.due = wheel.schedule(t, t.nextDue);
    } else {
      t.periodicId = vertx.setPeriodic(Math.max(1, offset), t.interval, id -> fire(t));
    }
  }

  private void stop(Target t) {
    t.active = false;
    peerCloses.forget(t.closes);
    if (t.due != null) {
      t.due.cancel();
      t.due = null;
    }
    if (t.periodicId >= 0) {
      vertx.cancelTimer(t.periodicId);
      t.periodicId = -1;
    }
    Probe p = t.current;
    if (p != null && p.running != null) {
      p.running.abort();
    }
  }

  /** Wheel: the member's probe is due. */
  private void onDue(Target t) {
    if (!t.active) {
      return;
    }
    fire(t);
    long now = nowMillis();
    t.nextDue += t.interval;
    if (t.nextDue <= now) {
      // Fell behind (a long pause): keep the phase, skip the missed rounds.
      t.nextDue += ((now - t.nextDue) / t.interval + 1) * t.interval;
    }
    t.due = wheel.schedule(t, t.nextDue);
  }

  private void fire(Target t) {
    if (!t.active) {
      return;
    }
    if (t.current != null) {
      skipped++;
      return;
    }
    // A kept-alive connection exists after a response, unless it idled out (60 s).
    boolean needsConnection = !t.connected || t.interval >= KEEP_ALIVE_SECONDS * 1000L;
    if (inFlight >= options.maxInFlight()
        || (needsConnection && connecting >= options.maxConnecting())
        || closed) {
      shed++;
      return;
    }
    Probe p = new Probe(t);
    if (needsConnection) {
      p.connecting = true;
      connecting++;
    }
    t.current = p;
    inFlight++;
    started++;
    if (wheel != null) {
      // Round the start up, or the timeout could fire a fraction of a millisecond early.
      long startMillis = -Math.floorDiv(-(p.startNanos - originNanos), 1_000_000L);
      p.timeout = wheel.schedule(p, startMillis + t.timeout);
    } else {
      p.timerId = vertx.setTimer(t.timeout, id -> onTimeout(p));
    }
    p.running =
        t.check.start(
            t.events,
            outcome -> {
              if (outcome.connectionKept()) {
                t.connected = true;
              }
              report(p, outcome.success(), outcome.statusCode(), outcome.error());
              release(p);
            });
  }

  private void onTimeout(Probe p) {
    if (p.reported) {
      return;
    }
    timedOut++;
    report(p, false, -1, "timeout after " + p.target.timeout + "ms");
    if (p.running != null) {
      // The check ends with it (a reset request, a connect left to its own timeout) and only
      // then frees its place in flight.
      p.running.abort();
    }
  }

  private void report(Probe p, boolean ok, int statusCode, String error) {
    if (p.reported) {
      return;
    }
    p.reported = true;
    if (p.timeout != null) {
      p.timeout.cancel();
    }
    if (p.timerId >= 0) {
      vertx.cancelTimer(p.timerId);
    }
    Target t = p.target;
    long latency = (System.nanoTime() - p.startNanos) / 1_000_000;
    if (ok && latency > t.timeout) {
      ok = false;
      error = "answered after " + latency + "ms, timeout " + t.timeout + "ms";
    }
    if (!t.active) {
      return;
    }
    if (ok) {
      succeeded++;
    } else {
      failed++;
      if (statusCode < 0) {
        t.connected = false; // no response: connection refused, reset or closed
      }
    }
    if (p.closeTriggered) {
      peerCloses.closeTriggeredProbeResult(t.closes, ok);
    }
    try {
      listener.onResult(new ProbeResult(t.key, ok, latency, statusCode, error, Instant.now()));
    } catch (RuntimeException e) {
      LOG.warn("probe listener failed on {}", t.key, e);
    }
  }

  /** The member closed the probe connection unexpectedly: probe now. */
  private void onPeerClosed(Target t) {
    t.connected = false;
    if (!t.active || closed || t.current != null) {
      return; // a probe in flight reports the close itself
    }
    // Next turn of the event loop: the client's pool must evict the closed connection first, or
    // the probe would be sent on it and fail though the member is fine.
    context.runOnContext(
        v -> {
          if (t.current == null) {
            fire(t);
            if (t.current != null) {
              t.current.closeTriggered = true;
            }
          }
        });
  }

  private void release(Probe p) {
    if (p.released) {
      return;
    }
    p.released = true;
    inFlight--;
    if (p.connecting) {
      connecting--;
    }
    if (p.target.current == p) {
      p.target.current = null;
    }
  }

  /** One member as probed; fields after the finals belong to the event loop. */
  private final class Target implements Runnable {
    final MemberKey key;
    final String host;
    final int port;
    final ProbeSpec spec;
    final long interval;
    final long timeout;
    final HealthChecker.MemberCheck check;

    final PeerCloseWatch.Member closes;
    final HealthChecker.ConnectionEvents events;

    boolean active = true;
    boolean connected;
    Probe current;
    long nextDue;
    TimingWheel.Timeout due;
    long periodicId = -1;

    Target(MemberKey key, String host, int port, ProbeSpec spec, long interval, long timeout) {
      this.key = key;
      this.host = host;
      this.port = port;
      this.spec = spec;
      this.interval = interval;
      this.timeout = timeout;
      this.closes = new PeerCloseWatch.Member(key);
      this.events = new PeerCloseEvents(peerCloses, closes, () -> onPeerClosed(this));
      int probedPort = spec.port() == null ? port : spec.port();
      this.check = checker(spec.type()).prepare(host, probedPort, spec, timeout);
    }

    boolean sameAs(Target o) {
      return host.equals(o.host)
          && port == o.port
          && spec.equals(o.spec)
          && interval == o.interval
          && timeout == o.timeout;
    }

    @Override
    public void run() {
      onDue(this);
    }
  }

  /** One probe in flight. */
  private final class Probe implements Runnable {
    final Target target;
    final long startNanos = System.nanoTime();
    HealthChecker.Running running;
    TimingWheel.Timeout timeout;
    long timerId = -1;
    boolean reported;
    boolean released;
    boolean connecting;
    boolean closeTriggered;

    Probe(Target target) {
      this.target = target;
    }

    @Override
    public void run() {
      onTimeout(this);
    }
  }
}
