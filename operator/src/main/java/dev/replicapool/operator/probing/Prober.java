package dev.replicapool.operator.probing;

import io.soabase.recordbuilder.core.RecordBuilder;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Active health probes for every member of every pool, on one event loop: when each member is
 * probed, how many probes run at once, and when one has taken too long. What a probe does is its
 * {@link HealthChecker}'s business ({@link HttpHealthChecker}, {@link GrpcHealthChecker}, {@link
 * TcpHealthChecker}), on shared non-blocking Vert.x clients.
 *
 * <ul>
 *   <li>Each member is probed every interval; its first probe comes at a random offset within the
 *       interval, so that members added together (a new pool, an operator restart) spread out
 *       instead of bursting, and later probes keep that phase.
 *   <li>At most one probe per member is in flight (a probe due meanwhile is skipped, {@link
 *       Stats#skipped()}), at most {@link Options#maxInFlight()} of all members together and {@link
 *       Options#maxConnecting()} that must connect first (beyond them probes are shed, {@link
 *       Stats#shed()}, not failed).
 *   <li>Success is the checker's (an expected HTTP status whose body has arrived, a gRPC SERVING, a
 *       TCP connect) within the timeout; a probe still running at the timeout is reported failed
 *       and aborted (a TCP connect gives up after 10 s).
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
 * periodic timer (the default: it measured cheaper, see docs/BENCH-PROBING.md; {@link
 * WheelScheduler}), or {@link Scheduling#TIMERS one Vert.x periodic per member plus one timer per
 * probe} ({@link TimerScheduler}).
 *
 * <p>The entry point of probing: {@link #track}, {@link #untrack} and {@link #retune} may be called
 * from any thread; the listener is called on the prober's event loop, where {@link ProbeRunner}
 * runs the probes, {@link ProbeLimits} bounds them and {@link ProbeWarmUp} precedes the first.
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
  @RecordBuilder
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
      return ProberOptionsBuilder.builder(this).scheduling(s).build();
    }

    public Options withMaxInFlight(int max) {
      return ProberOptionsBuilder.builder(this).maxInFlight(max).build();
    }

    public Options withMaxConnecting(int max) {
      return ProberOptionsBuilder.builder(this).maxConnecting(max).build();
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

  private final Context context;
  private final Checkers checkers;
  private final Options options;
  private final ProbeScheduler scheduler;
  private final ProbeRunner runner;
  private final ConcurrentHashMap<MemberKey, ProbeRunner.Target> targets =
      new ConcurrentHashMap<>();

  /** A prober with the default options and no listener yet (see {@link #setListener}). */
  public Prober(Vertx vertx) {
    this(vertx, r -> {}, Options.defaults());
  }

  public Prober(Vertx vertx, ProbeListener listener) {
    this(vertx, listener, Options.defaults());
  }

  public Prober(Vertx vertx, ProbeListener listener, Options options) {
    this(vertx, listener, options, ProbeClock.SYSTEM, LoopTimers.of(vertx));
  }

  /** On the given time: tests pass a clock and timers they move themselves. */
  Prober(
      Vertx vertx, ProbeListener listener, Options options, ProbeClock clock, LoopTimers timers) {
    Objects.requireNonNull(vertx);
    this.options = Objects.requireNonNull(options);
    this.context = vertx.getOrCreateContext();
    this.checkers = new Checkers(vertx, options.userAgent());
    this.scheduler = scheduler(options, clock, timers);
    ProbeLimits limits = new ProbeLimits(options.maxInFlight(), options.maxConnecting());
    this.runner =
        new ProbeRunner(
            context, clock, scheduler, limits, checkers::of, Objects.requireNonNull(listener));
    context.runOnContext(
        v -> ProbeWarmUp.run(vertx, checkers.clients()).onComplete(ar -> runner.warmedUp()));
  }

  private ProbeScheduler scheduler(Options options, ProbeClock clock, LoopTimers timers) {
    if (options.scheduling() == Scheduling.TIMERS) {
      return new TimerScheduler(timers);
    }
    if (Vertx.currentContext() == context) {
      return new WheelScheduler(options.tickMillis(), clock, timers);
    }
    // The wheel's periodic tick, set from outside the context, would fire on another event loop.
    CompletableFuture<ProbeScheduler> wheel = new CompletableFuture<>();
    context.runOnContext(
        v -> wheel.complete(new WheelScheduler(options.tickMillis(), clock, timers)));
    return wheel.join();
  }

  /** Replaces the listener; results of probes finishing afterwards go to the new one. */
  public void setListener(ProbeListener listener) {
    runner.setListener(listener);
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
    if (runner.closed()) {
      return; // shutting down: nothing to probe any more
    }
    ProbeRunner.Target fresh = runner.target(key, host, port, spec, intervalMillis, timeoutMillis);
    ProbeRunner.Target current = targets.get(key);
    if (current != null && current.sameAs(fresh)) {
      return;
    }
    ProbeRunner.Target previous = targets.put(key, fresh);
    context.runOnContext(
        v -> {
          if (previous != null) {
            runner.stop(previous);
          }
          if (targets.get(key) == fresh && !runner.closed()) {
            runner.start(fresh);
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
    ProbeRunner.Target t = targets.get(key);
    if (t == null) {
      return false;
    }
    track(key, t.host, t.port, t.spec, intervalMillis, timeoutMillis);
    return true;
  }

  /** Stops probing the member; a probe in flight is reset and its result dropped. */
  public void untrack(MemberKey key) {
    ProbeRunner.Target t = targets.remove(key);
    if (t != null) {
      context.runOnContext(v -> runner.stop(t));
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
    return runner.stats(targets.size());
  }

  public Options options() {
    return options;
  }

  @Override
  public void close() {
    if (runner.closed()) {
      return;
    }
    runner.markClosed();
    List<ProbeRunner.Target> all = new ArrayList<>(targets.values());
    targets.clear();
    CompletableFuture<Void> stopped = new CompletableFuture<>();
    context.runOnContext(
        v -> {
          all.forEach(runner::stop);
          scheduler.close();
          checkers.close().onComplete(ar -> stopped.complete(null));
        });
    if (Vertx.currentContext() == null) {
      try {
        stopped.get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.debug("prober close: {}", e.toString());
      }
    }
  }
}
