package dev.replicapool.operator.probing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimingWheelTest {

  @Test
  void runsTasksAtTheirTickNeverBefore() {
    TimingWheel wheel = new TimingWheel(10, 8, 1_000);
    List<String> ran = new ArrayList<>();
    wheel.schedule(() -> ran.add("a"), 1_025);
    wheel.schedule(() -> ran.add("b"), 1_030);

    assertThat(wheel.advance(1_029)).isZero(); // a's tick is 1030: the first at or after 1025
    assertThat(wheel.advance(1_030)).isEqualTo(2);
    assertThat(ran).containsExactlyInAnyOrder("a", "b");
    assertThat(wheel.size()).isZero();
  }

  @Test
  void aDeadlineInThePastRunsAtTheNextTick() {
    TimingWheel wheel = new TimingWheel(10, 8, 1_000);
    List<String> ran = new ArrayList<>();
    wheel.schedule(() -> ran.add("late"), 500);
    assertThat(wheel.advance(1_009)).isZero();
    assertThat(wheel.advance(1_010)).isEqualTo(1);
  }

  @Test
  void delaysLongerThanOneRotationWaitWholeRotations() {
    TimingWheel wheel = new TimingWheel(10, 8, 0); // a rotation is 80 ms
    List<Long> at = new ArrayList<>();
    long[] now = {0};
    wheel.schedule(() -> at.add(now[0]), 250);
    for (now[0] = 0; now[0] <= 400; now[0] += 10) {
      wheel.advance(now[0]);
    }
    assertThat(at).containsExactly(250L);
  }

  @Test
  void cancelledTasksNeverRun() {
    TimingWheel wheel = new TimingWheel(10, 8, 0);
    List<String> ran = new ArrayList<>();
    TimingWheel.Timeout t = wheel.schedule(() -> ran.add("x"), 20);
    t.cancel();
    wheel.advance(100);
    assertThat(ran).isEmpty();
    assertThat(wheel.size()).isZero();
  }

  @Test
  void aTaskMayRescheduleItselfOneRotationLater() {
    TimingWheel wheel = new TimingWheel(10, 8, 0);
    List<Long> at = new ArrayList<>();
    long[] now = {0};
    Runnable[] self = new Runnable[1];
    self[0] =
        () -> {
          at.add(now[0]);
          if (at.size() < 3) {
            wheel.schedule(self[0], now[0] + 80); // the very slot being processed
          }
        };
    wheel.schedule(self[0], 80);
    for (now[0] = 0; now[0] <= 400; now[0] += 10) {
      wheel.advance(now[0]);
    }
    assertThat(at).containsExactly(80L, 160L, 240L);
  }

  @Test
  void catchesUpAfterAPause() {
    TimingWheel wheel = new TimingWheel(10, 8, 0);
    List<Integer> ran = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      int n = i;
      wheel.schedule(() -> ran.add(n), n * 25L);
    }
    assertThat(wheel.advance(10_000)).isEqualTo(20);
    assertThat(ran).hasSize(20);
  }
}
