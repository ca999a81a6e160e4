package dev.replicapool.operator.probing;

import dev.replicapool.api.v1alpha1.HealthCheckType;
import io.vertx.core.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The probes of the tracked members, on the prober's event loop: each member's rounds on the {@link
 * ProbeScheduler}, whether a due probe starts ({@link #fire}), its timeout, its result. {@link
 * Prober} is the thread-safe entry point and hands members here on the event loop.
 *
 * <p>A due probe is skipped while the member's previous one runs (counted in {@link
 * Prober.Stats#skipped()}) and shed beyond the {@link ProbeLimits} ({@link Prober.Stats#shed()}). A
 * probe still running at the timeout is reported failed ("timeout after 100 ms") and aborted; an
 * answer after the timeout is a failure too. A member's kept-alive connection that closes
 * unannounced ({@link PeerCloseWatch} tells which closes count) triggers a probe at once.
 */
final class ProbeRunner {
  private static final Logger LOG = LoggerFactory.getLogger(ProbeRunner.class);

  private final Context context;
  private final ProbeClock clock;
  private final ProbeScheduler scheduler;
  private final ProbeLimits limits;
  private final ProbeCounters counters = new ProbeCounters();
  private final Function<HealthCheckType, HealthChecker> checkers;
  private final PeerCloseWatch peerCloses;
  private final List<Target> waitingForWarmUp = new ArrayList<>();
  private volatile ProbeListener listener;
  private volatile boolean closed;
  private boolean warm;

  ProbeRunner(
      Context context,
      ProbeClock clock,
      ProbeScheduler scheduler,
      ProbeLimits limits,
      Function<HealthCheckType, HealthChecker> checkers,
      ProbeListener listener) {
    this.context = context;
    this.clock = clock;
    this.scheduler = scheduler;
    this.limits = limits;
    this.checkers = checkers;
    this.listener = listener;
    long origin = clock.nanoTime();
    this.peerCloses =
        new PeerCloseWatch(
            () -> (clock.nanoTime() - origin) / 1_000_000, Prober.KEEP_ALIVE_SECONDS * 1000L);
  }

  void setListener(ProbeListener listener) {
    this.listener = Objects.requireNonNull(listener);
  }

  /** From now on due probes are shed and results of those in flight dropped; any thread. */
  void markClosed() {
    closed = true;
  }

  boolean closed() {
    return closed;
  }

  Prober.Stats stats(int tracked) {
    return counters.stats(tracked, limits.inFlight());
  }

  /** The client stack is loaded: members tracked meanwhile start their rounds. */
  void warmedUp() {
    warm = true;
    List<Target> waiting = new ArrayList<>(waitingForWarmUp);
    waitingForWarmUp.clear();
    waiting.stream().filter(t -> t.active && !closed).forEach(this::start);
  }

  /** Starts the member's rounds at a random phase within its interval (after the warm-up). */
  void start(Target t) {
    if (!warm) {
      waitingForWarmUp.add(t);
      return;
    }
    long phase = ThreadLocalRandom.current().nextLong(t.interval);
    t.rounds = scheduler.every(phase, t.interval, () -> fire(t));
  }

  /** Ends the member's rounds; a probe in flight is aborted and its result dropped. */
  void stop(Target t) {
    t.active = false;
    peerCloses.forget(t.closes);
    if (t.rounds != null) {
      t.rounds.cancel();
      t.rounds = null;
    }
    Probe p = t.current;
    if (p != null && p.running != null) {
      p.running.abort();
    }
  }

  /** The member's probe is due: start one, unless one runs or a limit says no. */
  private void fire(Target t) {
    if (!t.active) {
      return;
    }
    if (t.current != null) {
      counters.skipped();
      return;
    }
    boolean mustConnect = mustConnect(t);
    if (closed || !limits.tryAcquire(mustConnect)) {
      counters.shed();
      return;
    }
    Probe p = begin(t, mustConnect);
    p.timeout = scheduler.timeout(p.startNanos, t.timeout, () -> onTimeout(p));
    p.running = t.check.start(t.events, outcome -> onOutcome(p, outcome));
  }

  /** A kept-alive connection exists after a response, unless it idled out (60 s). */
  private static boolean mustConnect(Target t) {
    return !t.connected || t.interval >= Prober.KEEP_ALIVE_SECONDS * 1000L;
  }

  private Probe begin(Target t, boolean mustConnect) {
    Probe p = new Probe(t, clock.nanoTime(), mustConnect);
    t.current = p;
    counters.started();
    return p;
  }

  private void onOutcome(Probe p, CheckOutcome outcome) {
    if (outcome.connectionKept()) {
      p.target.connected = true;
    }
    report(
        p,
        outcome.success(),
        outcome.statusCode(),
        outcome.cause(),
        outcome.error(),
        outcome.utilization());
    release(p);
  }

  private void onTimeout(Probe p) {
    if (p.reported) {
      return;
    }
    counters.timedOut();
    report(p, false, -1, ProbeCause.TIMEOUT, "timeout after " + p.target.timeout + " ms", null);
    if (p.running != null) {
      // The check ends with it (a reset request, a connect left to its own timeout) and only
      // then frees its place in flight.
      p.running.abort();
    }
  }

  /** The probe's one result, judged against its timeout; dropped when the member went away. */
  private void report(
      Probe p, boolean ok, int statusCode, ProbeCause cause, String error, Double utilization) {
    if (p.reported) {
      return;
    }
    p.reported = true;
    p.timeout.cancel();
    Target t = p.target;
    long latency = (clock.nanoTime() - p.startNanos) / 1_000_000;
    if (ok && latency > t.timeout) {
      ok = false;
      cause = ProbeCause.TIMEOUT;
      error = "answered after " + latency + " ms, timeout " + t.timeout + " ms";
    }
    if (!t.active) {
      return;
    }
    count(t, ok, statusCode);
    if (p.closeTriggered) {
      peerCloses.closeTriggeredProbeResult(t.closes, ok);
    }
    tell(
        new ProbeResult(
            t.key, ok, latency, statusCode, cause, error, clock.instant(), utilization));
  }

  private void count(Target t, boolean ok, int statusCode) {
    if (ok) {
      counters.succeeded();
    } else {
      counters.failed();
      if (statusCode < 0) {
        t.connected = false; // no response: connection refused, reset or closed
      }
    }
  }

  private void tell(ProbeResult result) {
    try {
      listener.onResult(result);
    } catch (RuntimeException e) {
      LOG.warn("probe listener failed on {}", result.key(), e);
    }
  }

  private void release(Probe p) {
    if (p.released) {
      return;
    }
    p.released = true;
    limits.release(p.mustConnect);
    if (p.target.current == p) {
      p.target.current = null;
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
    context.runOnContext(v -> fireAfterClose(t));
  }

  private void fireAfterClose(Target t) {
    if (t.current == null) {
      fire(t);
      if (t.current != null) {
        t.current.closeTriggered = true;
      }
    }
  }

  /** A member's check as {@link Prober#track} asks for it; prepared on the caller's thread. */
  Target target(MemberKey key, String host, int port, ProbeSpec spec, long interval, long timeout) {
    return new Target(key, host, port, spec, interval, timeout);
  }

  /** One member as probed; fields after the finals belong to the event loop. */
  final class Target {
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
    ProbeScheduler.Scheduled rounds;

    private Target(
        MemberKey key, String host, int port, ProbeSpec spec, long interval, long timeout) {
      this.key = key;
      this.host = host;
      this.port = port;
      this.spec = spec;
      this.interval = interval;
      this.timeout = timeout;
      this.closes = new PeerCloseWatch.Member(key);
      this.events = new PeerCloseEvents(peerCloses, closes, () -> onPeerClosed(this));
      int probedPort = spec.port() == null ? port : spec.port();
      this.check = checkers.apply(spec.type()).prepare(host, probedPort, spec, timeout);
    }

    boolean sameAs(Target o) {
      return host.equals(o.host)
          && port == o.port
          && spec.equals(o.spec)
          && interval == o.interval
          && timeout == o.timeout;
    }
  }

  /** One probe in flight. */
  private static final class Probe {
    final Target target;
    final long startNanos;
    final boolean mustConnect;
    HealthChecker.Running running;
    ProbeScheduler.Scheduled timeout;
    boolean reported;
    boolean released;
    boolean closeTriggered;

    Probe(Target target, long startNanos, boolean mustConnect) {
      this.target = target;
      this.startNanos = startNanos;
      this.mustConnect = mustConnect;
    }
  }
}
