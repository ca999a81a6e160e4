package dev.replicapool.operator.probing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.operator.probing.Prober.Scheduling;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Both schedulers on fake time, run by run: when rounds and timeouts run, and when they do not. */
class ProbeSchedulerTest {
  private static final long TICK = 5;

  private final FakeTime time = new FakeTime();
  private final List<Long> runs = new ArrayList<>();

  private ProbeScheduler scheduler(Scheduling scheduling) {
    return scheduling == Scheduling.WHEEL
        ? new WheelScheduler(TICK, time, time)
        : new TimerScheduler(time);
  }

  /** Records the fake time of each run. */
  private Runnable recorder() {
    return () -> runs.add(time.nowMillis());
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void theFirstRunComesAtThePhaseThenOneEveryInterval(Scheduling scheduling) {
    scheduler(scheduling).every(30, 100, recorder());

    time.advance(29);
    assertThat(runs).isEmpty();
    time.advance(1);
    assertThat(runs).containsExactly(30L);
    time.advance(99);
    assertThat(runs).containsExactly(30L);
    time.advance(1);
    assertThat(runs).containsExactly(30L, 130L);
    time.advance(200);
    assertThat(runs).containsExactly(30L, 130L, 230L, 330L);
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void aPhaseOfZeroRunsWithinATickNeverAtOnce(Scheduling scheduling) {
    scheduler(scheduling).every(0, 100, recorder());
    assertThat(runs).isEmpty();

    time.advance(TICK);

    assertThat(runs).hasSize(1);
    assertThat(runs.get(0)).isBetween(1L, TICK);
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void cancelledRoundsRunNoMore(Scheduling scheduling) {
    ProbeScheduler.Scheduled rounds = scheduler(scheduling).every(10, 50, recorder());
    time.advance(10);
    assertThat(runs).containsExactly(10L);

    rounds.cancel();
    rounds.cancel();
    time.advance(500);

    assertThat(runs).containsExactly(10L);
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void aTimeoutRunsAfterItsDurationFromTheStartNeverEarlierAndAtMostATickLate(
      Scheduling scheduling) {
    ProbeScheduler s = scheduler(scheduling);
    time.advanceNanos(10_400_000); // a start a fraction of a millisecond past 10 ms
    s.timeout(time.nanoTime(), 50, recorder());

    time.advanceNanos(49_900_000); // 60.3 ms
    assertThat(runs).isEmpty();
    time.advanceNanos(100_000 + TICK * 1_000_000); // 60.4 ms and one tick

    assertThat(runs).hasSize(1);
    assertThat(runs.get(0)).isBetween(60L, 60L + TICK);
  }

  @ParameterizedTest
  @EnumSource(Scheduling.class)
  void aCancelledTimeoutNeverRuns(Scheduling scheduling) {
    ProbeScheduler.Scheduled timeout =
        scheduler(scheduling).timeout(time.nanoTime(), 50, recorder());
    time.advance(49);

    timeout.cancel();
    time.advance(100);

    assertThat(runs).isEmpty();
  }

  @Test
  void theWheelRoundsTheStartUpAndFiresOnTheNextTick() {
    ProbeScheduler s = scheduler(Scheduling.WHEEL);
    time.advanceNanos(10_400_000);
    s.timeout(time.nanoTime(), 50, recorder());

    time.advance(60); // 70.4 ms

    // Start rounded up to 11 ms, deadline 61 ms, first tick at or after it 65 ms.
    assertThat(runs).containsExactly(65L);
  }

  @Test
  void afterAPauseTheWheelRunsOnceLateThenKeepsThePhaseSkippingMissedRounds() {
    scheduler(Scheduling.WHEEL).every(30, 100, recorder());
    time.advance(30);

    time.pause(350); // the event loop was busy until 380 ms: rounds 130, 230 and 330 missed
    time.advance(0);
    assertThat(runs).containsExactly(30L, 380L);

    time.advance(50);
    assertThat(runs).containsExactly(30L, 380L, 430L);
    time.advance(100);
    assertThat(runs).containsExactly(30L, 380L, 430L, 530L);
  }

  @Test
  void theWheelCostsOneTimerWhateverTheMembersTimersOnePerMember() {
    ProbeScheduler wheel = scheduler(Scheduling.WHEEL);
    for (int i = 0; i < 100; i++) {
      wheel.every(i, 100, recorder());
    }
    assertThat(time.pendingTimers()).isEqualTo(1);

    FakeTime other = new FakeTime();
    ProbeScheduler timers = new TimerScheduler(other);
    for (int i = 0; i < 100; i++) {
      timers.every(i, 100, recorder());
    }
    assertThat(other.pendingTimers()).isEqualTo(100);
  }

  @Test
  void closingTheWheelCancelsItsTick() {
    ProbeScheduler wheel = scheduler(Scheduling.WHEEL);
    wheel.every(10, 100, recorder());

    wheel.close();
    time.advance(500);

    assertThat(time.pendingTimers()).isZero();
    assertThat(runs).isEmpty();
  }
}
