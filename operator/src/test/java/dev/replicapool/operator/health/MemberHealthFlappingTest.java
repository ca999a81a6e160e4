package dev.replicapool.operator.health;

import static dev.replicapool.api.v1alpha1.MemberState.Degraded;
import static dev.replicapool.api.v1alpha1.MemberState.Healthy;
import static dev.replicapool.api.v1alpha1.MemberState.Unhealthy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #28: a member whose results alternate or are a coin toss changes state a bounded number of
 * times per minute ({@link FlapLimit}: at most 3 recoveries, so at most 8 changes), and returns to
 * Healthy only after the recovery hold.
 */
class MemberHealthFlappingTest {
  private static final long T0 = 1_700_000_000_000L;
  private static final long MINUTE = 60_000;
  private static final int MAX_RECOVERIES = 3; // the default
  private static final int MAX_CHANGES = 2 * MAX_RECOVERIES + 2;

  private final MutableClock clock = new MutableClock(T0);

  /** The policies that flap most: thresholds of 1, and a recovery hold of 0 (forgives at once). */
  static List<HealthPolicy> flappyPolicies() {
    HealthPolicy seed = MemberHealthTest.seedRoundRobin();
    return List.of(
        seed,
        seed.withRecovery(0, 0),
        seed.withRecovery(1_000, 0),
        MemberHealthTest.adaptive().withThresholds(1, 1).withRecovery(0, 0));
  }

  /** Probes every interval for {@code millis}, returning the transitions they caused. */
  private List<Transition> run(MemberHealth m, long millis, BooleanSupplier result) {
    List<Transition> out = new ArrayList<>();
    long end = clock.millis() + millis;
    while (clock.millis() < end) {
      clock.advance(m.policy().intervalMillis());
      m.onProbe(result.getAsBoolean(), 5, "HTTP 500").ifPresent(out::add);
    }
    return out;
  }

  private static boolean better(Transition t) {
    return rank(t.to()) > rank(t.from());
  }

  private static int rank(MemberState s) {
    return switch (s) {
      case Healthy -> 2;
      case Degraded -> 1;
      default -> 0;
    };
  }

  /** In every 60 s window starting at a transition: at most 3 recoveries and 8 changes. */
  private static void assertBounded(List<Transition> ts) {
    for (Transition first : ts) {
      List<Transition> window =
          ts.stream()
              .filter(t -> !t.at().isBefore(first.at()))
              .filter(t -> t.at().toEpochMilli() - first.at().toEpochMilli() < MINUTE)
              .toList();
      assertThat(window.stream().filter(MemberHealthFlappingTest::better).count())
          .as("recoveries within a minute from %s: %s", first.at(), window)
          .isLessThanOrEqualTo(MAX_RECOVERIES);
      assertThat(window).as("changes within a minute").hasSizeLessThanOrEqualTo(MAX_CHANGES);
    }
  }

  @Test
  void alternatingResultsForAMinuteStayWithinTheBound() {
    for (HealthPolicy policy : flappyPolicies()) {
      MemberHealth m = new MemberHealth(policy, clock);
      boolean[] next = {false};
      List<Transition> ts =
          run(
              m,
              5 * MINUTE,
              () -> {
                next[0] = !next[0];
                return !next[0];
              });
      assertBounded(ts);
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
  void coinTossResultsStayWithinTheBound(long seed) {
    for (HealthPolicy policy : flappyPolicies()) {
      Random random = new Random(seed);
      MemberHealth m = new MemberHealth(policy, clock);
      assertBounded(run(m, 5 * MINUTE, random::nextBoolean));
    }
  }

  @Test
  void theBoundBitesAndTheReasonSaysSo() {
    // A Lease's health flag that alternates, hold 0: nothing but the bound stops it.
    MemberHealth m = new MemberHealth(MemberHealthTest.seedRoundRobin().withRecovery(0, 0), clock);
    List<String> reasons = new ArrayList<>();
    for (int i = 0; i < MINUTE / 300; i++) {
      clock.advance(300);
      m.onSelfReported(i % 2 == 1);
      m.tick();
      reasons.add(m.reason());
    }
    assertThat(reasons).anySatisfy(r -> assertThat(r).startsWith("held for flapping"));
  }

  @Test
  void aHeldMemberStaysInItsWorseStateThenRecoversThroughTheHoldOnceSteady() {
    HealthPolicy policy = MemberHealthTest.seedRoundRobin().withRecovery(1_000, 0);
    MemberHealth m = new MemberHealth(policy, clock);
    // Three rounds of fail, pass, hold: three recoveries to Degraded... and to Healthy.
    List<Transition> ts = new ArrayList<>();
    int recoveries = 0;
    while (recoveries < MAX_RECOVERIES) {
      clock.advance(200);
      Optional<Transition> t = m.onProbe(m.state() == Healthy ? false : true, 5, "HTTP 500");
      t.ifPresent(ts::add);
      if (t.isPresent() && better(t.get())) {
        recoveries++;
      }
    }
    assertThat(m.state()).isIn(Degraded, Healthy);
    // Fail again: worse at once, never held.
    clock.advance(200);
    assertThat(m.onProbe(false, 5, "HTTP 500").map(Transition::to)).contains(Unhealthy);
    long heldAt = clock.millis();
    // Passes now readmit it (after the doubled streak), but the bound holds it Unhealthy.
    assertThat(run(m, 2_000, () -> true)).isEmpty();
    while (clock.millis() - T0 < MINUTE - 400) {
      clock.advance(200);
      assertThat(m.onProbe(true, 5, null)).isEmpty();
      assertThat(m.state()).isEqualTo(Unhealthy);
      assertThat(m.weight()).isZero();
      assertThat(m.reason()).startsWith("held for flapping");
    }
    // Steady: once the first recovery left the window it comes back through Degraded...
    List<Transition> after = run(m, 2_000, () -> true);
    assertThat(after).isNotEmpty();
    assertThat(after.get(0).from()).isEqualTo(Unhealthy);
    assertThat(after.get(0).to()).isEqualTo(Degraded);
    assertThat(after.get(0).at().toEpochMilli() - heldAt).isGreaterThan(0);
    // ...and is Healthy only after the recovery hold of good results.
    List<Transition> all = new ArrayList<>(after);
    all.addAll(run(m, 2 * MINUTE, () -> true));
    Transition healthy =
        all.stream().filter(t -> t.to() == Healthy).findFirst().orElseThrow(AssertionError::new);
    assertThat(healthy.at().toEpochMilli() - after.get(0).at().toEpochMilli())
        .isGreaterThanOrEqualTo(policy.recoverAfterMillis());
    assertThat(m.state()).isEqualTo(Healthy);
  }

  @Test
  void theBoundFollowsTheSpec() {
    HealthPolicy policy = MemberHealthTest.seedRoundRobin().withRecovery(0, 0);
    assertThat(policy.maxRecoveriesPerMinute()).as("default").isEqualTo(3);
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.healthCheck.maxRecoveriesPerMinute = 5;
    assertThat(HealthPolicy.from(spec).maxRecoveriesPerMinute()).isEqualTo(5);
    MemberHealth m = new MemberHealth(policy.withMaxRecoveriesPerMinute(1), clock);
    List<Transition> ts = new ArrayList<>();
    for (int i = 0; i < MINUTE / 300; i++) {
      clock.advance(300);
      m.onSelfReported(i % 2 == 1).ifPresent(ts::add);
      m.tick().ifPresent(ts::add);
    }
    assertThat(ts.stream().filter(MemberHealthFlappingTest::better).count()).isEqualTo(1);
    assertThat(m.reason()).startsWith("held for flapping: 1 recovery within 60s");
  }

  @Test
  void selfReportsThatAlternateAreBoundedToo() {
    // The anti-flapping doubling is for probes only; a Lease's health flag flaps unless bounded.
    HealthPolicy policy = MemberHealthTest.seedRoundRobin().withRecovery(0, 0);
    MemberHealth m = new MemberHealth(policy, clock);
    List<Transition> ts = new ArrayList<>();
    for (int i = 0; i < 5 * MINUTE / 300; i++) {
      clock.advance(300);
      m.onSelfReported(i % 2 == 1).ifPresent(ts::add);
      m.tick().ifPresent(ts::add);
    }
    assertBounded(ts);
    assertThat(ts.stream().filter(MemberHealthFlappingTest::better).count())
        .as("5 minutes, 3 recoveries in each")
        .isBetween(3L, 15L);
  }
}
