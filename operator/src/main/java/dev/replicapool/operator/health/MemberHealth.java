package dev.replicapool.operator.health;

import dev.replicapool.api.v1alpha1.MemberState;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * The health state machine of one member: plain Java, no I/O, time from an injected {@link Clock}.
 * Methods are synchronized, so probe results (event loop) and status reads (reconciler) may come
 * from different threads. One class past 300 lines on purpose: the rules below read and write the
 * same few counters, and split apart they could no longer be checked against each other.
 *
 * <h2>Inputs</h2>
 *
 * {@link #onProbe}, {@link #onLeaseExpired}, {@link #onSelfReported} (the health flag that comes
 * with every lease renewal; a renewal also ends a lease expiry), {@link #onDraining} and {@link
 * #tick} (time passing without input: the recovery hold of a member that is not probed). Each
 * returns the transition it caused, if any.
 *
 * <h2>Rules</h2>
 *
 * <ul>
 *   <li>A member that joins ({@link #joining}) is Pending, weight 0, until {@code healthyThreshold}
 *       probes pass in a row; then it is Healthy at once (no recovery hold: it is not recovering
 *       from anything), and its windows hold nothing from before its first pass. Probes that fail
 *       while Pending change no state (so cause no Warning Event), unless the member is still
 *       Pending {@code startupGraceMillis} after it joined: then it is Unhealthy, saying it never
 *       answered. Without active checks there is nothing to wait for: it starts Healthy. A member
 *       that was never routable comes back from that Unhealthy straight to Healthy, as from
 *       Pending; the hysteresis below is for members that were routable before.
 *   <li>A member whose model restarts ({@link #MemberHealth(HealthPolicy, Clock)}: a new health
 *       policy for a member that was routable) starts Healthy, weight 1.0.
 *   <li>Unhealthy, weight 0: {@code unhealthyThreshold} probes failed in a row, the lease expired,
 *       or the member reports itself unhealthy. With a threshold of 1 one failed probe is enough.
 *   <li>Degraded: two probes failed in a row, the decaying error rate above its threshold, or the
 *       p95 of the last {@code latencyWindow} latencies above {@code factor x baseline}.
 *   <li>Back from Unhealthy only through Degraded, after {@code healthyThreshold} passing probes in
 *       a row; the weight ramps up linearly over {@code slowStartMillis}, from 10 % (Envoy's
 *       minimum weight percent), starting at the first passing probe of the streak (Envoy #23328).
 *   <li>Degraded to Healthy only after {@code recoverAfterMillis} of good results: passing probes
 *       with none of the Degraded conditions. At most one transition per input, so a member always
 *       passes through Degraded.
 *   <li>Anti-flapping: each time probes eject a member again before it reached Healthy, the passing
 *       streak it needs to come back doubles (healthyThreshold x 2^(ejections-1), at most x64).
 *       Reaching Healthy forgives. A member that alternates pass and fail thus changes state at
 *       most three times, even with thresholds of 1.
 *   <li>Draining (a terminating Pod) is final, weight 0.
 * </ul>
 *
 * <h2>Signals</h2>
 *
 * Latency samples come from passing probes, and from failed probes that took at least the timeout
 * (a hanging member is slow); a fast failure (connection refused, quick 500) counts in the error
 * rate only, so failing fast never looks fast (linkerd2 #11669). The error rate is an exponentially
 * weighted average of failures with weight {@code errorAlpha} per probe; the latency score one of
 * latencies with weight {@code latencyAlpha}, starting at the first sample.
 *
 * <h2>Weight</h2>
 *
 * Unhealthy and Draining: 0. Otherwise {@code max(minWeight, base x ramp)}, rounded to two
 * decimals, where base is {@code 1 - (latencyPenalty + errorPenalty)} for the Adaptive policy
 * ({@code latencyPenalty = max(0, (score - baseline) / baseline)}, {@code errorPenalty = 10 x
 * errorRate}) and 1.0 for RoundRobin.
 */
public final class MemberHealth {
  /** The slow-start ramp starts at this share of the weight. */
  public static final double SLOW_START_MIN_FACTOR = 0.1;

  /** The passing streak needed after repeated ejections doubles at most this many times. */
  public static final int MAX_FLAP_DOUBLINGS = 6;

  private final HealthPolicy policy;
  private final Clock clock;

  private MemberState state = MemberState.Healthy;
  private String reason = "member added";
  private final long joinedMillis;

  /** False until the member first turned routable: until then no hysteresis applies. */
  private boolean everRoutable = true;

  private long lastTransitionMillis;
  private int transitions;

  private final long[] window;
  private int windowCount;
  private int windowNext;
  private double latencyScore = Double.NaN;
  private double errorRate;
  private int consecutiveFailures;
  private int consecutiveSuccesses;
  private long streakStartMillis = -1;

  private boolean probeDown;
  private String probeDownReason;
  private int ejections;
  private boolean leaseExpired;
  private boolean selfUnhealthy;

  private long goodSinceMillis;
  private long rampStartMillis = -1;
  private long pendingRampStartMillis = -1;

  /** A member already known routable: starts Healthy (see the class comment). */
  public MemberHealth(HealthPolicy policy, Clock clock) {
    this.policy = policy;
    this.clock = clock;
    this.window = new long[policy.latencyWindow()];
    this.lastTransitionMillis = clock.millis();
    this.joinedMillis = lastTransitionMillis;
    this.goodSinceMillis = lastTransitionMillis;
  }

  /** A member that just joined: Pending until its first passing probes, when probes are on. */
  public static MemberHealth joining(HealthPolicy policy, Clock clock) {
    MemberHealth m = new MemberHealth(policy, clock);
    if (policy.activeChecks()) {
      m.state = MemberState.Pending;
      int n = policy.healthyThreshold();
      m.reason =
          n == 1
              ? "waiting for its first passing probe"
              : "waiting for " + n + " passing probes in a row";
      m.everRoutable = false;
    }
    return m;
  }

  public HealthPolicy policy() {
    return policy;
  }

  /**
   * A fresh model under a new policy: Healthy if this member was ever routable, else joining again
   * (a spec change must neither pull routable members nor admit ones that never answered).
   */
  public synchronized MemberHealth restartedWith(HealthPolicy newPolicy) {
    return everRoutable ? new MemberHealth(newPolicy, clock) : joining(newPolicy, clock);
  }

  /**
   * One probe's outcome. {@code latencyMillis} is how long it took, also when it failed (a probe
   * that timed out reports at least the timeout).
   */
  public synchronized Optional<Transition> onProbe(boolean success, long latencyMillis) {
    long now = clock.millis();
    if (!everRoutable && state != MemberState.Draining) {
      return onStartupProbe(success, latencyMillis, now);
    }
    double a = policy.errorAlpha();
    if (success) {
      consecutiveFailures = 0;
      if (consecutiveSuccesses++ == 0) {
        streakStartMillis = now;
      }
      recordLatency(latencyMillis);
      errorRate = errorRate * (1 - a);
      if (probeDown && consecutiveSuccesses >= requiredPasses()) {
        probeDown = false;
        probeDownReason = null;
        pendingRampStartMillis = Math.max(pendingRampStartMillis, streakStartMillis);
      }
    } else {
      consecutiveSuccesses = 0;
      streakStartMillis = -1;
      consecutiveFailures++;
      if (latencyMillis >= policy.timeoutMillis()) {
        recordLatency(latencyMillis);
      }
      errorRate = errorRate * (1 - a) + a;
      if (!probeDown && consecutiveFailures >= policy.unhealthyThreshold()) {
        probeDown = true;
        ejections++;
        probeDownReason = failures(consecutiveFailures);
      }
    }
    updateGoodSince(now);
    return evaluate(now);
  }

  /**
   * A probe of a member that was never routable: only a streak of passes counts, starting from the
   * first pass; failures leave no trace but end the streak and, past the grace, the wait.
   */
  private Optional<Transition> onStartupProbe(boolean success, long latencyMillis, long now) {
    if (!success) {
      consecutiveSuccesses = 0;
      consecutiveFailures++;
      if (state == MemberState.Pending && now - joinedMillis >= policy.startupGraceMillis()) {
        return Optional.of(
            transition(
                MemberState.Unhealthy,
                "never answered: no probe passed within "
                    + policy.startupGraceMillis()
                    + "ms of joining ("
                    + failures(consecutiveFailures)
                    + ")",
                now));
      }
      return Optional.empty();
    }
    consecutiveFailures = 0;
    consecutiveSuccesses++;
    recordLatency(latencyMillis);
    errorRate = 0;
    if (consecutiveSuccesses < policy.healthyThreshold() || leaseExpired || selfUnhealthy) {
      return Optional.empty();
    }
    everRoutable = true;
    goodSinceMillis = now;
    return Optional.of(
        transition(MemberState.Healthy, "answered: " + passes(consecutiveSuccesses), now));
  }

  /** The member's lease was not renewed within the lease duration. */
  public synchronized Optional<Transition> onLeaseExpired() {
    long now = clock.millis();
    leaseExpired = true;
    goodSinceMillis = -1;
    return evaluate(now);
  }

  /**
   * The health flag a member reports about itself with a lease renewal. A renewal also ends a lease
   * expiry.
   */
  public synchronized Optional<Transition> onSelfReported(boolean healthy) {
    long now = clock.millis();
    boolean wasBlocked = leaseExpired || selfUnhealthy;
    leaseExpired = false;
    selfUnhealthy = !healthy;
    if (wasBlocked && healthy) {
      pendingRampStartMillis = Math.max(pendingRampStartMillis, now);
    }
    updateGoodSince(now);
    return evaluate(now);
  }

  /** The member is going away (terminating Pod): no new requests, final. */
  public synchronized Optional<Transition> onDraining() {
    if (state == MemberState.Draining) {
      return Optional.empty();
    }
    return Optional.of(transition(MemberState.Draining, "draining", clock.millis()));
  }

  /** Applies what time alone changes (the recovery hold); call it periodically. */
  public synchronized Optional<Transition> tick() {
    return evaluate(clock.millis());
  }

  public synchronized MemberState state() {
    return state;
  }

  /** Traffic share relative to a healthy member, 0..1, two decimals; see the class comment. */
  public synchronized double weight() {
    return weightAt(clock.millis());
  }

  /** p95 of the latency window, null before the first sample. */
  public synchronized Long latencyP95Millis() {
    if (windowCount == 0) {
      return null;
    }
    long[] copy = Arrays.copyOf(window, windowCount);
    Arrays.sort(copy);
    int rank = (int) Math.ceil(0.95 * windowCount) - 1;
    return copy[Math.max(0, rank)];
  }

  /** Exponentially decaying latency score, NaN before the first sample. */
  public synchronized double latencyScoreMillis() {
    return latencyScore;
  }

  /** Exponentially decaying share of failed probes, 0..1. */
  public synchronized double errorRate() {
    return errorRate;
  }

  public synchronized String reason() {
    return reason;
  }

  public synchronized Instant lastTransition() {
    return Instant.ofEpochMilli(lastTransitionMillis);
  }

  /** State changes since creation. */
  public synchronized int transitions() {
    return transitions;
  }

  public synchronized int consecutiveFailures() {
    return consecutiveFailures;
  }

  public synchronized HealthSnapshot snapshot() {
    return new HealthSnapshot(
        state,
        weightAt(clock.millis()),
        latencyP95Millis(),
        errorRate,
        reason,
        Instant.ofEpochMilli(lastTransitionMillis),
        consecutiveFailures,
        consecutiveSuccesses);
  }

  // ---------------------------------------------------------------------------------------------

  private Optional<Transition> evaluate(long now) {
    if (state == MemberState.Draining || !everRoutable) {
      return Optional.empty(); // before the first pass only probes and draining move it
    }
    String down =
        leaseExpired
            ? "lease expired"
            : selfUnhealthy ? "reports itself unhealthy" : probeDown ? probeDownReason : null;
    if (down != null) {
      rampStartMillis = -1;
      pendingRampStartMillis = -1;
      if (state != MemberState.Unhealthy) {
        return Optional.of(transition(MemberState.Unhealthy, down, now));
      }
      reason = down;
      return Optional.empty();
    }
    String cause = degradedCause();
    switch (state) {
      case Unhealthy -> {
        rampStartMillis = pendingRampStartMillis >= 0 ? pendingRampStartMillis : now;
        pendingRampStartMillis = -1;
        String why =
            cause != null
                ? cause
                : consecutiveSuccesses > 0
                    ? "recovering: " + passes(consecutiveSuccesses) + ", slow start"
                    : "recovering, slow start";
        return Optional.of(transition(MemberState.Degraded, why, now));
      }
      case Healthy -> {
        if (cause != null) {
          return Optional.of(transition(MemberState.Degraded, cause, now));
        }
        return Optional.empty();
      }
      case Degraded -> {
        if (cause != null) {
          reason = cause;
          return Optional.empty();
        }
        if (goodSinceMillis >= 0 && now - goodSinceMillis >= policy.recoverAfterMillis()) {
          ejections = 0;
          return Optional.of(
              transition(
                  MemberState.Healthy,
                  "recovered after " + policy.recoverAfterMillis() + "ms of good results",
                  now));
        }
        if (!reason.startsWith("recovering")) {
          reason = "recovering: needs " + policy.recoverAfterMillis() + "ms of good results";
        }
        return Optional.empty();
      }
      default -> {
        return Optional.empty();
      }
    }
  }

  private Transition transition(MemberState to, String why, long now) {
    Transition t = new Transition(state, to, why, Instant.ofEpochMilli(now));
    state = to;
    reason = why;
    lastTransitionMillis = now;
    transitions++;
    return t;
  }

  /** The first Degraded condition that holds, as a reason naming its number; null if none. */
  private String degradedCause() {
    if (consecutiveFailures >= 2) {
      return failures(consecutiveFailures);
    }
    if (errorRate > policy.errorRateThreshold()) {
      return "error rate "
          + Fmt.like(errorRate, policy.errorRateThreshold())
          + " > "
          + Fmt.num(policy.errorRateThreshold());
    }
    Long p95 = latencyP95Millis();
    if (p95 != null && p95 > policy.degradedLatencyLimitMillis()) {
      return String.format(
          Locale.ROOT,
          "p95 %dms > %s x %dms",
          p95,
          Fmt.num(policy.degradedLatencyFactor()),
          policy.baselineLatencyMillis());
    }
    return null;
  }

  private void updateGoodSince(long now) {
    boolean clean =
        !probeDown
            && !leaseExpired
            && !selfUnhealthy
            && consecutiveFailures == 0
            && degradedCause() == null;
    if (!clean) {
      goodSinceMillis = -1;
    } else if (goodSinceMillis < 0) {
      goodSinceMillis = now;
    }
  }

  private int requiredPasses() {
    int doublings = Math.min(Math.max(ejections - 1, 0), MAX_FLAP_DOUBLINGS);
    return policy.healthyThreshold() << doublings;
  }

  private void recordLatency(long latencyMillis) {
    long sample = Math.max(0, latencyMillis);
    window[windowNext] = sample;
    windowNext = (windowNext + 1) % window.length;
    windowCount = Math.min(windowCount + 1, window.length);
    latencyScore =
        Double.isNaN(latencyScore)
            ? sample
            : latencyScore + policy.latencyAlpha() * (sample - latencyScore);
  }

  private double weightAt(long now) {
    if (state == MemberState.Unhealthy
        || state == MemberState.Draining
        || state == MemberState.Pending) {
      return 0.0;
    }
    double base = 1.0;
    if (policy.weighted()) {
      double baseline = policy.baselineLatencyMillis();
      double latencyPenalty =
          Double.isNaN(latencyScore) ? 0.0 : Math.max(0.0, (latencyScore - baseline) / baseline);
      double errorPenalty = 10.0 * errorRate;
      base = 1.0 - (latencyPenalty + errorPenalty);
    }
    double w = Math.max(policy.minWeight(), Math.min(1.0, base * rampFactor(now)));
    return Math.round(w * 100) / 100.0;
  }

  private double rampFactor(long now) {
    if (rampStartMillis < 0 || policy.slowStartMillis() <= 0) {
      return 1.0;
    }
    long elapsed = now - rampStartMillis;
    if (elapsed >= policy.slowStartMillis()) {
      return 1.0;
    }
    return Math.max(SLOW_START_MIN_FACTOR, (double) elapsed / policy.slowStartMillis());
  }

  private static String failures(int n) {
    return n == 1 ? "1 probe failed" : n + " probes failed in a row";
  }

  private static String passes(int n) {
    return n == 1 ? "1 probe passed" : n + " probes passed in a row";
  }
}
