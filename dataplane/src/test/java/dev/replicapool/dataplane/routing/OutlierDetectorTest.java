package dev.replicapool.dataplane.routing;

import static dev.replicapool.dataplane.routing.Fixtures.endpoint;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The detector alone, transition by transition on the fake clock. */
class OutlierDetectorTest {
  final Fixtures.FakeClock clock = new Fixtures.FakeClock();
  final List<String> events = new ArrayList<>();
  final EjectionEvents recorder =
      new EjectionEvents() {
        @Override
        public void ejected(Endpoint e, long millis) {
          events.add("ejected " + e.host() + " " + millis);
        }

        @Override
        public void returned(Endpoint e) {
          events.add("returned " + e.host());
        }
      };
  final Endpoint a = endpoint("a", 1.0, clock);
  final Endpoint b = endpoint("b", 1.0, clock);
  final Endpoint c = endpoint("c", 1.0, clock);

  OutlierDetector detector(OutlierPolicy policy, OutlierDetector previous, Endpoint... members) {
    return new OutlierDetector(policy, List.of(members), previous, clock, recorder);
  }

  @Test
  void ejectsAtTheThresholdAndReturnsOnProbationWhenTheTimeIsUp() {
    OutlierDetector d = detector(new OutlierPolicy(2, 1000, 5000, 50), null, a, b, c);
    assertThat(d.failure(b)).isFalse();
    assertThat(d.consecutiveFailures(b)).isEqualTo(1);
    assertThat(d.failure(b)).isTrue();
    assertThat(events).containsExactly("ejected b 1000");
    assertThat(d.consecutiveFailures(b)).isZero();
    assertThat(d.ejectedForMillis(b, clock.now)).isEqualTo(1000);

    clock.advanceMillis(999);
    assertThat(d.ejected(b)).isTrue();
    assertThat(d.ejectedForMillis(b, clock.now)).isEqualTo(1);
    clock.advanceMillis(1);
    assertThat(d.ejected(b)).isFalse();
    assertThat(d.onProbation(b)).isTrue();
    assertThat(events).containsExactly("ejected b 1000", "returned b");

    // On probation one failure ejects again, for twice the base.
    assertThat(d.failure(b)).isTrue();
    assertThat(d.ejections(b)).isEqualTo(2);
    assertThat(d.ejectedForMillis(b, clock.now)).isEqualTo(2000);
  }

  @Test
  void aSuccessEndsTheStreakAndProbation() {
    OutlierDetector d = detector(new OutlierPolicy(2, 1000, 5000, 50), null, a, b, c);
    d.failure(a);
    d.success(a);
    assertThat(d.failure(a)).isFalse();
    assertThat(d.failure(a)).isTrue();
    clock.advanceMillis(1000);
    assertThat(d.ejected(a)).isFalse();
    d.success(a);
    assertThat(d.onProbation(a)).isFalse();
    assertThat(d.failure(a)).isFalse();
  }

  @Test
  void failuresDuringAnEjectionAndOfStrangersCountForNothing() {
    OutlierDetector d = detector(new OutlierPolicy(1, 1000, 5000, 50), null, a, b, c);
    assertThat(d.failure(a)).isTrue();
    assertThat(d.failure(a)).isFalse(); // a request sent before the ejection
    assertThat(d.consecutiveFailures(a)).isZero();
    Endpoint stranger = endpoint("gone", 1.0, clock);
    assertThat(d.failure(stranger)).isFalse();
    assertThat(d.ejected(stranger)).isFalse();
  }

  @Test
  void theCapCountsAdmittedMembersOnly() {
    Endpoint sick = endpoint("sick", 0.0, clock); // weight 0: not admitted
    OutlierDetector d = detector(new OutlierPolicy(1, 1000, 5000, 50), null, a, b, sick);
    assertThat(d.failure(sick)).as("not admitted: nothing to eject").isFalse();
    assertThat(d.failure(a)).isTrue(); // 50 % of 2 admitted: one
    assertThat(d.failure(b)).isFalse();
    clock.advanceMillis(1000);
    assertThat(d.failure(b)).isTrue();
  }

  @Test
  void aDetectorOfANewerSnapshotKeepsTheStateOfMembersThatStay() {
    OutlierDetector d1 = detector(new OutlierPolicy(1, 1000, 5000, 50), null, a, b, c);
    d1.failure(b);
    Endpoint d = endpoint("d", 1.0, clock);
    OutlierDetector d2 = detector(new OutlierPolicy(1, 1000, 5000, 50), d1, a, b, d);
    assertThat(d2.ejected(b)).isTrue();
    assertThat(d2.ejections(b)).isEqualTo(1);
    assertThat(d2.ejected(d)).isFalse();
    clock.advanceMillis(1000);
    assertThat(d2.ejected(b)).isFalse();
    assertThat(d1.onProbation(b)).as("one state, seen from both").isTrue();
  }
}
