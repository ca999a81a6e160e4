package dev.replicapool.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The convergence bookkeeping transition by transition, on a hand-moved clock, with the ledger the
 * server uses: what the server does on each frame is one ledger call, then one call here.
 */
class PushConvergenceTest {
  static final String POOL = "ns/a";
  static final Set<String> DEFAULT = Set.of("default");
  static final long MS = 1_000_000;

  final AckLedger<String> ledger = new AckLedger<>();
  long now = 1_000 * MS;
  final PushConvergence<String> convergence = new PushConvergence<>(ledger, () -> now);

  @BeforeEach
  void twoDataPlanes() {
    join("A");
    join("B");
  }

  void join(String dp) {
    ledger.join(dp, "node-" + dp, "default");
    convergence.dataPlanesChanged();
  }

  void leave(String dp) {
    ledger.leave(dp);
    convergence.dataPlanesChanged();
  }

  /** Publishes a version whose change was seen now. */
  void publish(long version) {
    convergence.published(POOL, version, DEFAULT, now);
  }

  List<Convergence> ack(String dp, long version) {
    ledger.ack(dp, POOL, version);
    return convergence.acked(POOL);
  }

  void nack(String dp, long version) {
    ledger.nack(dp, POOL, version, "no");
    // The server does not ask the bookkeeping on a NACK; asking must change nothing either.
    assertThat(convergence.acked(POOL)).isEmpty();
  }

  void after(long millis) {
    now += millis * MS;
  }

  @Test
  void aVersionConvergesWithTheAckOfTheLastDataPlane() {
    publish(1);
    after(3);
    assertThat(ack("A", 1)).isEmpty();
    after(4);
    assertThat(ack("B", 1)).containsExactly(new Convergence(POOL, 1, 7 * MS));
    assertThat(convergence.lastNanos(POOL)).hasValue(7 * MS);
    assertThat(convergence.pending(POOL)).isZero();
    // Once per version: the same ACK again observes nothing.
    after(5);
    assertThat(ack("B", 1)).isEmpty();
    assertThat(convergence.lastNanos(POOL)).hasValue(7 * MS);
  }

  @Test
  void nothingIsKnownBeforeTheFirstConvergence() {
    assertThat(convergence.lastNanos(POOL)).isEmpty();
    publish(1);
    assertThat(convergence.lastNanos(POOL)).isEmpty();
  }

  @Test
  void aRejectionHoldsThePoolUntilThatDataPlaneAppliesAVersionAsNew() {
    publish(1);
    after(2);
    ack("A", 1);
    nack("B", 1);
    after(100);
    nack("B", 1); // the resend, rejected again
    after(8);
    assertThat(ack("B", 1)).containsExactly(new Convergence(POOL, 1, 110 * MS));
  }

  @Test
  void aDisconnectDoesNotMakeThePoolConvergeAndDropsWhatTheOthersApplied() {
    publish(1);
    after(2);
    ack("A", 1);
    nack("B", 1);
    after(50);
    leave("B");
    // A alone runs version 1 now, but nobody applied anything at this moment: not observed.
    assertThat(convergence.pending(POOL)).isZero();
    assertThat(convergence.lastNanos(POOL)).isEmpty();
    assertThat(ack("A", 1)).isEmpty();

    // The next version converges on A alone, from its own trigger.
    publish(2);
    after(4);
    assertThat(ack("A", 2)).containsExactly(new Convergence(POOL, 2, 4 * MS));
  }

  @Test
  void aDisconnectLeavesWaitingWhatTheRemainingDataPlanesLack() {
    publish(1);
    after(2);
    ack("A", 1);
    leave("A"); // B has not applied 1: it still waits for B
    assertThat(convergence.pending(POOL)).isEqualTo(1);
    after(3);
    assertThat(ack("B", 1)).containsExactly(new Convergence(POOL, 1, 5 * MS));
  }

  @Test
  void supersededVersionsAreObservedWhenALaterOneConverges() {
    publish(1);
    after(10);
    publish(2);
    after(10);
    publish(3);
    after(5);
    ack("A", 3);
    assertThat(ack("B", 1)).containsExactly(new Convergence(POOL, 1, 25 * MS));
    after(5);
    // B skips version 2: its change is in version 3, so both converge now, each from its trigger.
    assertThat(ack("B", 3))
        .containsExactly(new Convergence(POOL, 2, 20 * MS), new Convergence(POOL, 3, 10 * MS));
    assertThat(convergence.lastNanos(POOL)).hasValue(10 * MS);
    assertThat(convergence.pending(POOL)).isZero();
  }

  @Test
  void aDataPlaneThatJoinsMidwayIsWaitedFor() {
    publish(1);
    after(2);
    ack("A", 1);
    join("C");
    after(3);
    assertThat(ack("B", 1)).isEmpty();
    after(4);
    assertThat(ack("C", 1)).containsExactly(new Convergence(POOL, 1, 9 * MS));
  }

  @Test
  void aDataPlaneThatJoinsAfterwardsObservesNothingMore() {
    publish(1);
    ack("A", 1);
    ack("B", 1);
    join("C");
    assertThat(ack("C", 1)).isEmpty();
  }

  @Test
  void aDataPlaneOfAnotherGroupDoesNotCount() {
    ledger.join("E", "node-E", "edge");
    publish(1);
    ack("A", 1);
    after(1);
    assertThat(ack("B", 1)).hasSize(1);
  }

  @Test
  void withoutAnyServingDataPlaneNothingWaitsNorIsObserved() {
    leave("A");
    leave("B");
    publish(1);
    assertThat(convergence.pending(POOL)).isZero();
    join("A");
    after(1_000);
    assertThat(ack("A", 1)).isEmpty();
  }

  @Test
  void aGroupChangeThatDropsTheLaggardDropsWhatTheOthersApplied() {
    ledger.join("E", "node-E", "edge");
    convergence.published(POOL, 1, Set.of("default", "edge"), now);
    ack("A", 1);
    ack("B", 1);
    assertThat(convergence.pending(POOL)).isEqualTo(1); // E lags
    convergence.published(POOL, 2, DEFAULT, now);
    assertThat(convergence.pending(POOL)).isEqualTo(1); // only 2 waits, for A and B
    after(6);
    ack("A", 2);
    assertThat(ack("B", 2)).containsExactly(new Convergence(POOL, 2, 6 * MS));
  }

  @Test
  void waitingVersionsAreBoundedOldestDroppedFirst() {
    nack("B", 1);
    for (long v = 1; v <= PushConvergence.MAX_PENDING + 50; v++) {
      publish(v);
      ack("A", v);
      after(1);
    }
    assertThat(convergence.pending(POOL)).isEqualTo(PushConvergence.MAX_PENDING);
    List<Convergence> all = ack("B", PushConvergence.MAX_PENDING + 50);
    assertThat(all).hasSize(PushConvergence.MAX_PENDING);
    assertThat(all.get(0).version()).isEqualTo(51);
  }

  @Test
  void aRemovedPoolIsForgotten() {
    publish(1);
    ack("A", 1);
    convergence.removed(POOL);
    assertThat(convergence.pending(POOL)).isZero();
    assertThat(ack("B", 1)).isEmpty();
    assertThat(convergence.lastNanos(POOL)).isEqualTo(OptionalLong.empty());
  }
}
