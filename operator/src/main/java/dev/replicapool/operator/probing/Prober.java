package dev.replicapool.operator.probing;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
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
 * Active HTTP health probes for every member of every pool, on one shared non-blocking Vert.x
 * {@link HttpClient} and one event loop.
 *
 * <ul>
 *   <li>Each member is probed every interval; its first probe comes at a random offset within the
 *       interval, so that members added together (a new pool, an operator restart) spread out
 *       instead of bursting, and later probes keep that phase.
 *   <li>At most one probe per member is in flight: a probe due while the previous one still runs is
 *       skipped (counted in {@link Stats#skipped()}); and at most {@link Options#maxInFlight()} of
 *       all members together, and at most {@link Options#maxConnecting()} that must connect first;
 *       beyond these, probes are shed ({@link Stats#shed()}), not failed.
 *   <li>Success is a 2xx whose body has arrived within the timeout. A probe still running at the
 *       timeout is reported failed ("timeout after 100ms") and its request is reset, which closes
 *       its connection or abandons its connect (a TCP connect gives up after 10 s).
 *   <li>Connections are kept alive (one per member), so a probe costs one request, not a TCP
 *       handshake: 10,000 members at 1 s are 10,000 requests/s, not 10,000 connects/s.
 *   <li>A kept-alive connection the member closes unexpectedly (the kernel closes the sockets of a
 *       process that died) triggers a probe at once, so a crash is seen in milliseconds, not at the
 *       next interval; see {@link PeerCloseWatch}. A silent death (freeze, partition) still takes
 *       interval + timeout.
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
  private static final Handler<Buffer> DISCARD = b -> {};
  private static final Handler<Throwable> IGNORE = e -> {};

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
  private final HttpClient client;
  private final Options options;
  private final ConcurrentHashMap<MemberKey, Target> targets = new ConcurrentHashMap<>();
  private final long originNanos = System.nanoTime();
  private final TimingWheel wheel;
  private final long wheelTimerId;
  private volatile ProbeListener listener;
  private volatile boolean closed;
  private boolean warm;
  private final List<Target> waitingForWarmUp = new ArrayList<>();
  private final PeerCloseWatch peerCloses = new PeerCloseWatch();

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
    this.client =
        vertx
            .httpClientBuilder()
            .with(
                new HttpClientOptions()
                    .setKeepAlive(true)
                    .setKeepAliveTimeout(KEEP_ALIVE_SECONDS)
                    .setConnectTimeout(CONNECT_TIMEOUT_MILLIS)
                    .setTcpNoDelay(true)
                    .setDecompressionSupported(false))
            // One connection per origin, on the event loop that asks for it (the prober's): a
            // probe never opens a second connection while a slow connect is still pending, so
            // 10,000 members hold 10,000 sockets at most. The same address in two pools shares
            // it, one probe after the other.
            .with(new PoolOptions().setHttp1MaxSize(1).setEventLoopSize(0))
            // A member that resets or drops a connection is a failed probe, reported as such:
            // without a handler Vert.x also logs each one at ERROR (every interval, per member).
            .withConnectHandler(
                c -> c.exceptionHandler(e -> LOG.debug("probe connection {}: {}", c, e.toString())))
            .build();
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

  /**
   * Starts probing {@code http://host:port/path} every {@code intervalMillis}, or changes the
   * member's target or timing when it is already tracked (then with a new random phase). Calling it
   * again with the same values changes nothing, so a reconcile may call it for every member.
   */
  public void track(
      MemberKey key, String host, int port, String path, long intervalMillis, long timeoutMillis) {
    if (intervalMillis < 1 || timeoutMillis < 1) {
      throw new IllegalArgumentException("interval and timeout must be positive");
    }
    if (closed) {
      return; // shutting down: nothing to probe any more
    }
    Target fresh =
        new Target(key, host, port, path == null ? "/" : path, intervalMillis, timeoutMillis);
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
    track(key, t.host, t.port, t.path, intervalMillis, timeoutMillis);
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
          client.close().onComplete(ar -> stopped.complete(null));
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
   * Sends a few requests through the shared client to a throwaway server on 127.0.0.1 before the
   * first real probe: a cold JVM spends a few hundred milliseconds loading the HTTP stack, which
   * would fail the first probes of every member under a tight timeout (the seed's 100 ms) and eject
   * healthy members at operator start. Capped at 3 s; probes start afterwards whatever happened.
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
              for (int i = 0; i < 20; i++) {
                chain =
                    chain.compose(
                        v ->
                            client
                                .request(o)
                                .compose(HttpClientRequest::send)
                                .compose(HttpClientResponse::end));
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
    if (t.due != null) {
      t.due.cancel();
      t.due = null;
    }
    if (t.periodicId >= 0) {
      vertx.cancelTimer(t.periodicId);
      t.periodicId = -1;
    }
    Probe p = t.current;
    if (p != null && p.request != null) {
      peerCloses.expectClose(p.request.connection());
      p.request.reset();
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
    client
        .request(t.options)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                report(p, false, -1, describe(ar.cause()));
                release(p);
                return;
              }
              HttpClientRequest req = ar.result();
              if (p.reported || !t.active) {
                req.reset();
                release(p);
                return;
              }
              p.request = req;
              peerCloses.watch(t.closes, req.connection(), () -> onPeerClosed(t));
              req.exceptionHandler(IGNORE); // the send future reports failures
              req.send()
                  .onComplete(
                      r -> {
                        if (r.failed()) {
                          report(p, false, -1, describe(r.cause()));
                          release(p);
                          return;
                        }
                        HttpClientResponse resp = r.result();
                        int code = resp.statusCode();
                        t.connected = true;
                        peerCloses.answered(t.closes, req.connection(), resp, nowMillis());
                        resp.handler(DISCARD);
                        resp.end()
                            .onComplete(
                                e -> {
                                  boolean ok = e.succeeded() && code >= 200 && code < 300;
                                  String error =
                                      e.failed() ? describe(e.cause()) : ok ? null : "HTTP " + code;
                                  report(p, ok, code, error);
                                  release(p);
                                });
                      });
            });
  }

  private void onTimeout(Probe p) {
    if (p.reported) {
      return;
    }
    timedOut++;
    report(p, false, -1, "timeout after " + p.target.timeout + "ms");
    if (p.request != null) {
      peerCloses.expectClose(p.request.connection()); // the reset below closes it
      p.request.reset();
    }
    // Without a request the connect is still pending; its own timeout (the same) releases it.
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
    if (p.onPeerClose) {
      t.closes.earlyProbeResult(ok, t.key);
    }
    try {
      listener.onResult(new ProbeResult(t.key, ok, latency, statusCode, error, Instant.now()));
    } catch (RuntimeException e) {
      LOG.warn("probe listener failed on {}", t.key, e);
    }
  }

  /** The member closed the probe connection: probe now unless the close was expected. */
  private void onPeerClosed(Target t) {
    t.connected = false;
    if (!t.active || closed || t.current != null) {
      return; // a probe in flight reports the close itself
    }
    if (t.closes.worthAProbe(nowMillis(), KEEP_ALIVE_SECONDS * 1000L)) {
      // Next turn of the event loop: the client's pool must evict the closed connection first,
      // or the probe would be sent on it and fail though the member is fine.
      context.runOnContext(
          v -> {
            if (t.current == null) {
              fire(t);
              if (t.current != null) {
                t.current.onPeerClose = true;
              }
            }
          });
    }
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

  private static String describe(Throwable t) {
    String m = t.getMessage();
    return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
  }

  /** One member as probed; fields after the finals belong to the event loop. */
  private final class Target implements Runnable {
    final MemberKey key;
    final String host;
    final int port;
    final String path;
    final long interval;
    final long timeout;
    final RequestOptions options;

    boolean active = true;
    boolean connected;
    final PeerCloseWatch.Member closes = new PeerCloseWatch.Member();
    Probe current;
    long nextDue;
    TimingWheel.Timeout due;
    long periodicId = -1;

    Target(MemberKey key, String host, int port, String path, long interval, long timeout) {
      this.key = key;
      this.host = host;
      this.port = port;
      this.path = path;
      this.interval = interval;
      this.timeout = timeout;
      this.options =
          new RequestOptions()
              .setMethod(HttpMethod.GET)
              .setHost(host)
              .setPort(port)
              .setURI(path)
              .setFollowRedirects(false)
              .putHeader("User-Agent", Prober.this.options.userAgent());
    }

    boolean sameAs(Target o) {
      return host.equals(o.host)
          && port == o.port
          && path.equals(o.path)
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
    HttpClientRequest request;
    TimingWheel.Timeout timeout;
    long timerId = -1;
    boolean reported;
    boolean released;
    boolean connecting;
    boolean onPeerClose;

    Probe(Target target) {
      this.target = target;
    }

    @Override
    public void run() {
      onTimeout(this);
    }
  }
}
