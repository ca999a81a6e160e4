package dev.replicapool.operator.health;

import dev.replicapool.api.v1alpha1.MemberState;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * The health state machine of one member: plain Java, no I/O, time from an injected {@link Clock}.
 * Methods are synchronized, so probe results (event loop) and status reads (reconciler) may come
 * from different threads. Inputs ({@link #onProbe}, {@link #onLeaseExpired}, {@link
 * #onSelfReported}, {@link #onDraining}, {@link #onDrained}, {@link #tick}) each return the
 * transition they caused, if any. This class decides the transitions; what the probes say is kept
 * by {@link ProbeSignals}, what holds a member down by {@link DownCauses}, the hold and the ramp by
 * {@link Recovery}, the bound on recoveries by {@link FlapLimit}, and the weight (0 unless Healthy
 * or Degraded) is {@link WeightPolicy}'s formula. About 430 lines: the rules below and the
 * synchronized read side take half; the transitions stay in one place so that they can be checked
 * against the rules.
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
 *   <li>Degraded: two probes failed in a row, the decaying error rate above its threshold, the p95
 *       of the last {@code latencyWindow} latencies above {@code factor x baseline}, or (with
 *       {@code degradedUtilization}) two fresh load reports in a row at or above it ("saturated:
 *       utilization 0.95 >= 0.90"). A member that never reports is judged on the others alone.
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
 *   <li>Hard bound ({@link FlapLimit}): at most {@code maxRecoveriesPerMinute} (default 3)
 *       recoveries (changes toward better) per rolling minute; beyond that the member stays in its
 *       worse state, its reason saying it is "held for flapping". Changes toward worse are never
 *       held. So at most 2N + 2 changes a minute (8), whatever the results' luck (issue #28: 5
 *       changes in 11 s at 50 % errors).
 *   <li>Draining (a terminating Pod) is final, weight 0.
 *   <li>Drained by a user ({@link #onDrained}: annotation, spec field): shown Draining, weight 0,
 *       until {@link #onUndrained}; the model runs on unseen underneath.
 * </ul>
 */
public final class MemberHealth {
  private final HealthPolicy policy;
  private final Clock clock;
  private final long joinedMillis;
  private final ProbeSignals signals;
  private final DownCauses down = new DownCauses();
  private final Recovery recovery;
  private final FlapLimit flaps;

  private MemberState state = MemberState.Healthy;
  private String reason = "member added";

  /** Who drained the member ("drained by annotation ..."), null when no user drains it. */
  private String drainedBy;

  /** False until the member first turned routable: until then no hysteresis applies. */
  private boolean everRoutable = true;

  private long lastTransitionMillis;
  private int transitions;

  /** A member already known routable: starts Healthy (see the class comment). */
  public MemberHealth(HealthPolicy policy, Clock clock) {
    this.policy = policy;
    this.clock = clock;
    this.signals = new ProbeSignals(policy);
    this.lastTransitionMillis = clock.millis();
    this.joinedMillis = lastTransitionMillis;
    this.recovery = new Recovery(lastTransitionMillis);
    this.flaps = new FlapLimit(policy.maxRecoveriesPerMinute());
  }

  /** A member that just joined: Pending until its first passing probes, when probes are on. */
  public static MemberHealth joining(HealthPolicy policy, Clock clock) {
    MemberHealth m = new MemberHealth(policy, clock);
    if (policy.activeChecks()) {
      m.state = MemberState.Pending;
      m.reason = waitingReason(policy);
      m.everRoutable = false;
    }
    return m;
  }

  private static String waitingReason(HealthPolicy policy) {
    int n = policy.healthyThreshold();
    return n == 1
        ? "waiting for its first passing probe"
        : "waiting for " + n + " passing probes in a row";
  }

  public HealthPolicy policy() {
    return policy;
  }

  /**
   * A fresh model under a new policy: Healthy if this member was ever routable, else joining again
   * (a spec change must neither pull routable members nor admit ones that never answered).
   */
  public synchronized MemberHealth restartedWith(HealthPolicy newPolicy) {
    MemberHealth fresh =
        everRoutable ? new MemberHealth(newPolicy, clock) : joining(newPolicy, clock);
    fresh.drainedBy = drainedBy; // a spec change is no undrain
    return fresh;
  }

  /** {@link #onProbe(boolean, long, String)} of a probe that did not say why it failed. */
  public synchronized Optional<Transition> onProbe(boolean success, long latencyMillis) {
    return onProbe(success, latencyMillis, null);
  }

  /**
   * One probe's outcome. {@code latencyMillis} is how long it took, also when it failed (a probe
   * that timed out reports at least the timeout); {@code failure} is what a failed one said
   * ("connection refused", "HTTP 500"), carried into the reasons so that a user reads why.
   */
  public synchronized Optional<Transition> onProbe(
      boolean success, long latencyMillis, String failure) {
    return onProbe(success, latencyMillis, failure, null);
  }

  /**
   * One probe's outcome with the utilization its answer reported (ORCA {@code
   * endpoint-load-metrics}), null when it reported none: a report counts for {@link
   * HealthPolicy#utilizationMaxAgeMillis}, and one without a report leaves the last in place.
   */
  public synchronized Optional<Transition> onProbe(
      boolean success, long latencyMillis, String failure, Double utilization) {
    long now = clock.millis();
    if (utilization != null) {
      signals.reported(utilization, now);
    }
    if (!everRoutable && state != MemberState.Draining) {
      return shown(onStartupProbe(success, latencyMillis, failure, now));
    }
    if (success) {
      signals.passed(latencyMillis, now);
      if (down.probesFailed()
          && signals.consecutiveSuccesses() >= down.requiredPasses(policy.healthyThreshold())) {
        down.readmittedByProbes();
        signals.streakStartMillis().ifPresent(recovery::rampFrom);
      }
    } else {
      signals.failed(latencyMillis, failure);
      if (!down.probesFailed() && signals.consecutiveFailures() >= policy.unhealthyThreshold()) {
        down.ejectedByProbes(Fmt.failures(signals.consecutiveFailures()), failure);
      } else {
        down.stillFailing(failure);
      }
    }
    observeResults(now);
    return shown(evaluate(now));
  }

  /**
   * A probe of a member that was never routable: only a streak of passes counts, starting from the
   * first pass; failures leave no trace but end the streak and, past the grace, the wait.
   */
  private Optional<Transition> onStartupProbe(
      boolean success, long latencyMillis, String failure, long now) {
    if (!success) {
      signals.failedAtStartup(failure);
      if (state == MemberState.Pending && now - joinedMillis >= policy.startupGraceMillis()) {
        return Optional.of(
            transition(
                MemberState.Unhealthy,
                "never answered: no probe passed within "
                    + policy.startupGraceMillis()
                    + "ms of joining ("
                    + signals.failures()
                    + ")",
                now));
      }
      if (state == MemberState.Pending && failure != null) {
        // No transition yet, but the reason says why it waits: "... ; last probe: HTTP 500".
        reason = waitingReason(policy) + "; last probe: " + failure;
      }
      return Optional.empty();
    }
    signals.passedAtStartup(latencyMillis);
    if (state == MemberState.Pending) {
      reason = waitingReason(policy);
    }
    if (signals.consecutiveSuccesses() < policy.healthyThreshold() || down.blocked()) {
      return Optional.empty();
    }
    if (!flaps.allows(now)) {
      reason = flaps.heldReason();
      return Optional.empty();
    }
    everRoutable = true;
    recovery.goodFrom(now);
    return recover(
        MemberState.Healthy, "answered: " + Fmt.passes(signals.consecutiveSuccesses()), now);
  }

  /** The member's lease was not renewed within the lease duration. */
  public synchronized Optional<Transition> onLeaseExpired() {
    long now = clock.millis();
    down.leaseExpired();
    recovery.notGood();
    return shown(evaluate(now));
  }

  /**
   * The health flag a member reports about itself with a lease renewal. A renewal also ends a lease
   * expiry.
   */
  public synchronized Optional<Transition> onSelfReported(boolean healthy) {
    long now = clock.millis();
    boolean wasBlocked = down.blocked();
    down.renewed(healthy);
    if (wasBlocked && healthy) {
      recovery.rampFrom(now);
    }
    observeResults(now);
    return shown(evaluate(now));
  }

  /** The member is going away (terminating Pod): no new requests, final. */
  public synchronized Optional<Transition> onDraining() {
    if (state == MemberState.Draining) {
      return Optional.empty();
    }
    if (drainedBy != null) {
      // Already shown Draining: it only becomes final.
      drainedBy = null;
      state = MemberState.Draining;
      reason = "draining";
      return Optional.empty();
    }
    return Optional.of(transition(MemberState.Draining, "draining", clock.millis()));
  }

  /**
   * A user drains the member ({@code why}: "drained by annotation replicapool.dev/drain"): shown
   * Draining, weight 0, until {@link #onUndrained}. The model keeps running underneath (probes, the
   * hold, the flap limit) without reporting its transitions, so that undraining shows the member's
   * health as it is then, like HAProxy's {@code set server state ready}.
   */
  public synchronized Optional<Transition> onDrained(String why) {
    if (state == MemberState.Draining || why.equals(drainedBy)) {
      return Optional.empty();
    }
    boolean wasDrained = drainedBy != null;
    drainedBy = why;
    if (wasDrained) {
      return Optional.empty(); // another cause, still Draining: the reason follows
    }
    long now = clock.millis();
    lastTransitionMillis = now;
    transitions++;
    return Optional.of(new Transition(state, MemberState.Draining, why, Instant.ofEpochMilli(now)));
  }

  /** The user's drain ends: the member shows its health again. Not for a terminating Pod. */
  public synchronized Optional<Transition> onUndrained() {
    if (drainedBy == null) {
      return Optional.empty();
    }
    drainedBy = null;
    long now = clock.millis();
    lastTransitionMillis = now;
    transitions++;
    return Optional.of(
        new Transition(
            MemberState.Draining, state, "undrained; " + reason, Instant.ofEpochMilli(now)));
  }

  /** Applies what time alone changes (the recovery hold); call it periodically. */
  public synchronized Optional<Transition> tick() {
    return shown(evaluate(clock.millis()));
  }

  public synchronized MemberState state() {
    return shownState();
  }

  /** Traffic share relative to a healthy member, 0..1, two decimals; see {@link WeightPolicy}. */
  public synchronized double weight() {
    return weightAt(clock.millis());
  }

  /** p95 of the latency window, null before the first sample. */
  public synchronized Long latencyP95Millis() {
    OptionalLong p95 = signals.latencies().p95();
    return p95.isPresent() ? p95.getAsLong() : null;
  }

  /** Exponentially decaying latency score, NaN before the first sample. */
  public synchronized double latencyScoreMillis() {
    return signals.latencies().score().orElse(Double.NaN);
  }

  /** The utilization the member last reported while it counts, null otherwise. */
  public synchronized Double utilization() {
    OptionalDouble u = signals.utilization(clock.millis());
    return u.isPresent() ? u.getAsDouble() : null;
  }

  /** Exponentially decaying share of failed probes, 0..1. */
  public synchronized double errorRate() {
    return signals.errorRate();
  }

  public synchronized String reason() {
    return shownReason();
  }

  public synchronized Instant lastTransition() {
    return Instant.ofEpochMilli(lastTransitionMillis);
  }

  /** State changes since creation. */
  public synchronized int transitions() {
    return transitions;
  }

  public synchronized int consecutiveFailures() {
    return signals.consecutiveFailures();
  }

  public synchronized HealthSnapshot snapshot() {
    return new HealthSnapshot(
        shownState(),
        weightAt(clock.millis()),
        latencyP95Millis(),
        signals.errorRate(),
        shownReason(),
        Instant.ofEpochMilli(lastTransitionMillis),
        signals.consecutiveFailures(),
        signals.consecutiveSuccesses(),
        utilization());
  }

  /** While a user drains the member its own transitions happen unseen. */
  private Optional<Transition> shown(Optional<Transition> t) {
    return drainedBy == null ? t : Optional.empty();
  }

  private MemberState shownState() {
    return drainedBy == null ? state : MemberState.Draining;
  }

  private String shownReason() {
    return drainedBy == null ? reason : drainedBy;
  }

  /** The transition the current inputs call for, at most one. */
  private Optional<Transition> evaluate(long now) {
    if (state == MemberState.Draining || !everRoutable) {
      return Optional.empty(); // before the first pass only probes and draining move it
    }
    Optional<String> downReason = down.reason();
    if (downReason.isPresent()) {
      return toUnhealthy(downReason.get(), now);
    }
    Optional<String> cause = signals.degradedCause(now);
    return switch (state) {
      case Unhealthy -> fromUnhealthy(cause, now);
      case Healthy -> cause.map(c -> transition(MemberState.Degraded, c, now));
      case Degraded -> fromDegraded(cause, now);
      default -> Optional.empty();
    };
  }

  private Optional<Transition> toUnhealthy(String why, long now) {
    recovery.cancelRamp();
    if (state != MemberState.Unhealthy) {
      return Optional.of(transition(MemberState.Unhealthy, why, now));
    }
    reason = why;
    return Optional.empty();
  }

  /** Nothing holds it down any more: back through Degraded, its weight ramping up. */
  private Optional<Transition> fromUnhealthy(Optional<String> cause, long now) {
    if (!flaps.allows(now)) {
      reason = flaps.heldReason();
      return Optional.empty();
    }
    recovery.startRamp(now);
    int passes = signals.consecutiveSuccesses();
    String why =
        cause.orElse(
            passes > 0
                ? "recovering: " + Fmt.passes(passes) + ", slow start"
                : "recovering, slow start");
    return recover(MemberState.Degraded, why, now);
  }

  /** Healthy after the hold of good results; until then the reason says what it waits for. */
  private Optional<Transition> fromDegraded(Optional<String> cause, long now) {
    if (cause.isPresent()) {
      reason = cause.get();
      return Optional.empty();
    }
    long hold = policy.recoverAfterMillis();
    if (recovery.heldFor(hold, now)) {
      if (!flaps.allows(now)) {
        reason = flaps.heldReason();
        return Optional.empty();
      }
      down.forgive();
      return recover(MemberState.Healthy, "recovered after " + hold + "ms of good results", now);
    }
    if (!reason.startsWith("recovering")) {
      reason = "recovering: needs " + hold + "ms of good results";
    }
    return Optional.empty();
  }

  /** A change toward a better state, which {@link FlapLimit} counts. */
  private Optional<Transition> recover(MemberState to, String why, long now) {
    flaps.recovered(now);
    return Optional.of(transition(to, why, now));
  }

  private Transition transition(MemberState to, String why, long now) {
    Transition t = new Transition(state, to, why, Instant.ofEpochMilli(now));
    state = to;
    reason = why;
    lastTransitionMillis = now;
    transitions++;
    return t;
  }

  /** Good results: nothing holds it down, no failure, no Degraded condition. */
  private void observeResults(long now) {
    boolean clean =
        !down.any() && signals.consecutiveFailures() == 0 && signals.degradedCause(now).isEmpty();
    recovery.observe(clean, now);
  }

  private double weightAt(long now) {
    return WeightPolicy.weight(
        policy,
        shownState(),
        signals.latencies().score(),
        signals.errorRate(),
        signals.saturated(now),
        recovery.rampStartMillis(),
        now);
  }
}
