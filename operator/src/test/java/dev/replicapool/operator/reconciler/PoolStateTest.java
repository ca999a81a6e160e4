package dev.replicapool.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.replicapool.api.v1alpha1.MemberSource;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.operator.discovery.Member;
import dev.replicapool.operator.membership.HandOver;
import dev.replicapool.operator.probing.ProbeSpec;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PoolStateTest {
  final StepClock clock = new StepClock(1_000_000);
  final PoolState state = new PoolState(new ResourceID("web", "shop"), clock);
  final ReplicaPoolSpec spec = new ReplicaPoolSpec(); // active checks, healthyThreshold 1

  static Member member(int port) {
    return new Member("10.0.0.1", port, MemberSource.Static, null, false, null, null);
  }

  static Member draining(int port) {
    return new Member("10.0.0.1", port, MemberSource.Pod, "pod-" + port, true, null, null);
  }

  MemberState stateOf(Member m) {
    return state.members().stream()
        .filter(t -> t.member().address().equals(m.address()))
        .findFirst()
        .orElseThrow()
        .health()
        .state();
  }

  @Test
  void theStateIsNamedAsTheProberAndTheDataPlanesNameThePool() {
    assertThat(state.id()).isEqualTo(new ResourceID("web", "shop"));
    assertThat(state.name()).isEqualTo("shop/web");
  }

  @Test
  void syncAddsNewMembersPendingAndRemovesThoseDiscoveryNoLongerFinds() {
    PoolState.SyncResult first = state.sync(spec, List.of(member(1), member(2)));
    assertThat(first.added()).containsExactly(member(1), member(2));
    assertThat(first.removed()).isEmpty();
    assertThat(stateOf(member(1))).isEqualTo(MemberState.Pending);

    PoolState.SyncResult second = state.sync(spec, List.of(member(2), member(3)));
    assertThat(second.added()).containsExactly(member(3));
    assertThat(second.removed()).containsExactly(member(1));
    assertThat(state.has(member(1).address())).isFalse();
  }

  @Test
  void membersTheStatusShowedRoutableStartHealthyOnTheFirstSyncOnly() {
    state.sync(spec, List.of(member(1), member(2)), Set.of(member(1).address()));
    assertThat(stateOf(member(1))).isEqualTo(MemberState.Healthy);
    assertThat(stateOf(member(2))).isEqualTo(MemberState.Pending);

    state.sync(spec, List.of(member(1), member(3)), Set.of(member(3).address()));
    assertThat(stateOf(member(3))).isEqualTo(MemberState.Pending);
  }

  @Test
  void aNewHealthPolicyHandsEveryMemberToTheProberAgain() {
    state.sync(spec, List.of(member(1), member(2)));
    assertThat(state.sync(spec, List.of(member(1), member(2))).added()).isEmpty();

    ReplicaPoolSpec slower = new ReplicaPoolSpec();
    slower.healthCheck.intervalMillis = 5_000;
    assertThat(state.sync(slower, List.of(member(1), member(2))).added())
        .containsExactly(member(1), member(2));
    assertThat(state.policy().intervalMillis()).isEqualTo(5_000);
  }

  @Test
  void probeTransitionsWaitForTheNextReconcile() {
    state.sync(spec, List.of(member(1)));
    assertThat(state.onProbe(member(1).address(), true, 5, null)).isPresent();
    assertThat(state.onProbe(member(1).address(), true, 5, null)).isEmpty();
    assertThat(state.onProbe("10.0.0.9:1", true, 5, null)).isEmpty();

    List<PoolState.MemberTransition> drained = state.drainTransitions();
    assertThat(drained).hasSize(1);
    assertThat(drained.get(0).address()).isEqualTo(member(1).address());
    assertThat(drained.get(0).transition().to()).isEqualTo(MemberState.Healthy);
    assertThat(state.drainTransitions()).isEmpty();
  }

  @Test
  void aTerminatingPodDrainsAtTheSync() {
    state.sync(spec, List.of(draining(1)), Set.of(draining(1).address()));
    assertThat(stateOf(draining(1))).isEqualTo(MemberState.Draining);
    assertThat(state.drainTransitions())
        .extracting(t -> t.transition().to())
        .containsExactly(MemberState.Draining);
  }

  @Test
  void aDrainedMemberGoesToTheDataPlanesDrainingWithWeightZeroUntilUndrained() {
    Member drained =
        new Member("10.0.0.1", 1, MemberSource.Static, null, false, null, null, "drained by x");
    state.sync(spec, List.of(member(1)), Set.of(member(1).address()));
    state.drainTransitions();

    state.sync(spec, List.of(drained));
    assertThat(state.memberSnapshots())
        .containsExactly(new MemberSnapshot("10.0.0.1", 1, 0.0, MemberState.Draining));
    assertThat(state.drainTransitions())
        .extracting(t -> t.transition().to())
        .containsExactly(MemberState.Draining);

    state.sync(spec, List.of(member(1)));
    assertThat(state.memberSnapshots())
        .containsExactly(new MemberSnapshot("10.0.0.1", 1, 1.0, MemberState.Healthy));
    assertThat(state.drainTransitions())
        .extracting(t -> t.transition().to())
        .containsExactly(MemberState.Healthy);
  }

  @Test
  void onlyRoutableMembersCarryTheirWeightToTheDataPlanes() {
    state.sync(spec, List.of(member(1), member(2)), Set.of(member(1).address()));
    assertThat(state.memberSnapshots())
        .containsExactly(
            new MemberSnapshot("10.0.0.1", 1, 1.0, MemberState.Healthy),
            new MemberSnapshot("10.0.0.1", 2, 0.0, MemberState.Pending));
  }

  @Test
  void aChangedProbeSpecIsToldOnceAndNotOnTheFirstCall() {
    ReplicaPoolSpec otherPort = new ReplicaPoolSpec();
    otherPort.healthCheck.port = 9999;
    assertThat(state.setProbeSpec(ProbeSpec.from(spec, null))).isFalse();
    assertThat(state.setProbeSpec(ProbeSpec.from(spec, null))).isFalse();
    assertThat(state.setProbeSpec(ProbeSpec.from(otherPort, null))).isTrue();
    assertThat(state.setProbeSpec(ProbeSpec.from(otherPort, null))).isFalse();
  }

  @Test
  void aRefusalIsNewsOnlyWhenItChanges() {
    assertThat(state.rejectionChanged(null)).isFalse();
    assertThat(state.rejectionChanged("port 80 in use")).isTrue();
    assertThat(state.rejectionChanged("port 80 in use")).isFalse();
    assertThat(state.rejectionChanged(null)).isTrue();
    assertThat(state.rejectionChanged("port 80 in use")).isTrue();
  }

  @Test
  void theLastStatusWriteAndPanicAreRemembered() {
    assertThat(state.lastStatusWriteMillis()).isZero();
    state.statusWritten(42);
    assertThat(state.lastStatusWriteMillis()).isEqualTo(42);
    assertThat(state.panicking()).isFalse();
    state.setPanicking(true);
    assertThat(state.panicking()).isTrue();
  }

  @Test
  void membersReplacedByAnEditServeUntilTheNewOnesAreRoutable() {
    state.sync(
        spec, List.of(member(1), member(2)), Set.of(member(1).address(), member(2).address()));

    PoolState.SyncResult edit =
        state.sync(spec, List.of(member(3), member(4)), Set.of(), m -> true);

    assertThat(edit.removed()).isEmpty();
    assertThat(edit.departures())
        .extracting(PoolState.Departure::phase)
        .containsExactly(HandOver.Phase.KEPT, HandOver.Phase.KEPT);
    assertThat(state.memberSnapshots())
        .extracting(MemberSnapshot::port, MemberSnapshot::weight)
        .containsExactly(tuple(1, 1.0), tuple(2, 1.0), tuple(3, 0.0), tuple(4, 0.0));
    assertThat(state.leaving())
        .extracting(k -> k.shown().state(), k -> k.shown().reason())
        .containsOnly(
            tuple(
                MemberState.Draining,
                "removed from spec; kept until 2 new members are routable (0 now), at most"
                    + " 10000ms"));
    assertThat(state.has(member(1).address())).isTrue();

    state.onProbe(member(3).address(), true, 5, null);
    assertThat(state.handOverDue()).isFalse();
    state.onProbe(member(4).address(), true, 5, null);
    assertThat(state.handOverDue()).isTrue();

    PoolState.SyncResult settled =
        state.sync(spec, List.of(member(3), member(4)), Set.of(), m -> true);
    assertThat(settled.removed()).containsExactly(member(1), member(2));
    assertThat(settled.departures())
        .extracting(PoolState.Departure::reason)
        .containsOnly("removed from spec; 2 routable members take over");
    assertThat(state.leaving()).isEmpty();
    assertThat(state.memberSnapshots()).extracting(MemberSnapshot::port).containsExactly(3, 4);
  }

  @Test
  void membersThatLeftOtherwiseOrWereNotRoutableLeaveAtOnce() {
    state.sync(spec, List.of(member(1), member(2)), Set.of(member(1).address()));

    PoolState.SyncResult gone = state.sync(spec, List.of(member(3)), Set.of(), m -> m.port() != 1);

    // 1 left without an edit (a Lease expired, a Pod went away); 2 was never routable.
    assertThat(gone.removed()).containsExactly(member(1), member(2));
    assertThat(state.leaving()).isEmpty();
  }

  @Test
  void aLeavingMemberThatFailsItsProbeIsRemovedAtTheNextSync() {
    state.sync(spec, List.of(member(1)), Set.of(member(1).address()));
    state.sync(spec, List.of(member(2)), Set.of(), m -> true);

    for (int i = 0; i < state.policy().unhealthyThreshold(); i++) {
      state.onProbe(member(1).address(), false, 5, "connection refused");
    }

    assertThat(state.handOverDue()).isTrue();
    assertThat(state.sync(spec, List.of(member(2)), Set.of(), m -> true).removed())
        .containsExactly(member(1));
  }

  @Test
  void aLeavingMemberIsRemovedAtTheCapWhenNoNewMemberAnswers() {
    state.sync(spec, List.of(member(1)), Set.of(member(1).address()));
    state.sync(spec, List.of(member(2)), Set.of(), m -> true);

    clock.step(state.policy().startupGraceMillis());

    assertThat(state.handOverDue()).isTrue();
    assertThat(state.sync(spec, List.of(member(2)), Set.of(), m -> true).removed())
        .containsExactly(member(1));
  }

  @Test
  void aLeavingMemberPutBackIsAMemberAgainWithItsHealth() {
    state.sync(spec, List.of(member(1)), Set.of(member(1).address()));
    state.sync(spec, List.of(member(2)), Set.of(), m -> true);

    PoolState.SyncResult back =
        state.sync(spec, List.of(member(1), member(2)), Set.of(), m -> true);

    assertThat(back.added()).isEmpty();
    assertThat(back.removed()).isEmpty();
    assertThat(state.leaving()).isEmpty();
    assertThat(stateOf(member(1))).isEqualTo(MemberState.Healthy);
  }

  @Test
  void aKeptMemberThatStopsRunningLeavesAtTheNextSync() {
    state.sync(spec, List.of(member(1)), Set.of(member(1).address()));
    state.sync(spec, List.of(member(2)), Set.of(), m -> true);
    assertThat(state.leaving()).hasSize(1);

    PoolState.SyncResult gone = state.sync(spec, List.of(member(2)), Set.of(), m -> false);

    assertThat(gone.removed()).containsExactly(member(1));
    assertThat(state.leaving()).isEmpty();
  }
}
