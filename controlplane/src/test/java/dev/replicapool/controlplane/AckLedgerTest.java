package dev.replicapool.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AckLedgerTest {
  static final Set<String> DEFAULT = Set.of("default");
  final AckLedger<String> ledger = new AckLedger<>();

  SyncState state(long latest) {
    return ledger.syncState("ns/a", OptionalLong.of(latest), DEFAULT);
  }

  @Test
  void withoutDataPlanesNothingIsSynced() {
    SyncState s = state(5);
    assertThat(s).isEqualTo(new SyncState(0, 0, 5, List.of()));
    assertThat(s.synced()).isFalse();
  }

  @Test
  void aDataPlaneThatJoinedCountsButIsNotAtTheLatestVersion() {
    ledger.join("c1", "node-1", "default");
    assertThat(state(5)).isEqualTo(new SyncState(1, 0, 5, List.of()));
  }

  @Test
  void anAckOfTheLatestVersionSyncsIt() {
    ledger.join("c1", "node-1", "default");
    ledger.ack("c1", "ns/a", 5);
    assertThat(state(5).synced()).isTrue();
  }

  @Test
  void anAckOfANewerVersionCountsAsAtTheLatest() {
    ledger.join("c1", "node-1", "default");
    ledger.ack("c1", "ns/a", 6);
    assertThat(state(5).atLatestVersion()).isEqualTo(1);
  }

  @Test
  void anAckOfAnOlderVersionLowersNothing() {
    ledger.join("c1", "node-1", "default");
    ledger.ack("c1", "ns/a", 5);
    ledger.ack("c1", "ns/a", 3);
    assertThat(state(5).synced()).isTrue();
  }

  @Test
  void aNewerLatestVersionUnsyncsUntilItIsAcked() {
    ledger.join("c1", "node-1", "default");
    ledger.ack("c1", "ns/a", 5);
    assertThat(state(6).synced()).isFalse();
    ledger.ack("c1", "ns/a", 6);
    assertThat(state(6).synced()).isTrue();
  }

  @Test
  void acksAreKeptPerPool() {
    ledger.join("c1", "node-1", "default");
    ledger.ack("c1", "ns/b", 5);
    assertThat(state(5).atLatestVersion()).isZero();
  }

  @Test
  void aNeverPublishedPoolHasNoDataPlaneAtItsVersion() {
    ledger.join("c1", "node-1", "default");
    assertThat(ledger.syncState("ns/a", OptionalLong.empty(), DEFAULT))
        .isEqualTo(new SyncState(1, 0, 0, List.of()));
    // Published at version 0, an ACK-less data plane is at it.
    assertThat(state(0).atLatestVersion()).isEqualTo(1);
  }

  @Test
  void aNackShowsUntilAVersionAtLeastAsNewIsAcked() {
    ledger.join("c1", "node-1", "default");
    ledger.nack("c1", "ns/a", 5, "bad port");
    assertThat(state(5).nacks()).containsExactly("node-1: version 5: bad port");
    ledger.ack("c1", "ns/a", 4);
    assertThat(state(5).nacks()).containsExactly("node-1: version 5: bad port");
    ledger.ack("c1", "ns/a", 5);
    assertThat(state(5).nacks()).isEmpty();
  }

  @Test
  void aLaterNackReplacesTheEarlierOne() {
    ledger.join("c1", "node-1", "default");
    ledger.nack("c1", "ns/a", 5, "first");
    ledger.nack("c1", "ns/a", 6, "second");
    assertThat(state(6).nacks()).containsExactly("node-1: version 6: second");
  }

  @Test
  void onlyDataPlanesOfThePoolsGroupsCount() {
    ledger.join("c1", "node-1", "default");
    ledger.join("c2", "node-2", "edge");
    ledger.ack("c2", "ns/a", 5);
    ledger.nack("c1", "ns/a", 5, "no");
    SyncState edge = ledger.syncState("ns/a", OptionalLong.of(5), Set.of("edge"));
    assertThat(edge).isEqualTo(new SyncState(1, 1, 5, List.of()));
    SyncState both = ledger.syncState("ns/a", OptionalLong.of(5), Set.of("edge", "default"));
    assertThat(both).isEqualTo(new SyncState(2, 1, 5, List.of("node-1: version 5: no")));
  }

  @Test
  void nacksAreListedInTheOrderTheDataPlanesJoined() {
    ledger.join("c2", "node-2", "default");
    ledger.join("c1", "node-1", "default");
    ledger.nack("c1", "ns/a", 5, "x");
    ledger.nack("c2", "ns/a", 5, "y");
    assertThat(state(5).nacks()).containsExactly("node-2: version 5: y", "node-1: version 5: x");
  }

  @Test
  void aDataPlaneThatLeftNoLongerCountsAndItsAnswersAreGone() {
    ledger.join("c1", "node-1", "default");
    ledger.ack("c1", "ns/a", 5);
    assertThat(ledger.leave("c1")).isTrue();
    assertThat(ledger.leave("c1")).isFalse();
    assertThat(ledger.contains("c1")).isFalse();
    assertThat(state(5)).isEqualTo(new SyncState(0, 0, 5, List.of()));
    ledger.join("c1", "node-1", "default");
    assertThat(state(5).atLatestVersion()).isZero();
  }

  @Test
  void answersOfUnknownKeysAreIgnored() {
    ledger.ack("ghost", "ns/a", 5);
    ledger.nack("ghost", "ns/a", 5, "x");
    ledger.join("ghost", "node-1", "default");
    assertThat(state(5)).isEqualTo(new SyncState(1, 0, 5, List.of()));
  }

  @Test
  void leaveNodeRemovesEveryStreamOfThatNodeInOrder() {
    ledger.join("c1", "node-1", "default");
    ledger.join("c2", "node-2", "default");
    ledger.join("c3", "node-1", "edge");
    assertThat(ledger.leaveNode("node-1")).containsExactly("c1", "c3");
    assertThat(ledger.keys()).containsExactly("c2");
    assertThat(ledger.leaveNode("node-1")).isEmpty();
  }

  @Test
  void nodesAreListedInJoinOrderAndByGroup() {
    ledger.join("c1", "node-1", "default");
    ledger.join("c2", "node-2", "edge");
    ledger.join("c3", "node-3", "default");
    assertThat(ledger.nodes()).containsExactly("node-1", "node-2", "node-3");
    assertThat(ledger.nodes("default")).containsExactly("node-1", "node-3");
    assertThat(ledger.nodes("other")).isEmpty();
  }

  @Test
  void joiningAgainKeepsThePlaceAndTheAnswers() {
    ledger.join("c1", "node-1", "default");
    ledger.join("c2", "node-2", "default");
    ledger.ack("c1", "ns/a", 5);
    ledger.join("c1", "node-1", "default");
    assertThat(ledger.keys()).containsExactly("c1", "c2");
    assertThat(state(5).atLatestVersion()).isEqualTo(1);
  }

  @Test
  void answeredListsWhatADataPlaneAppliedAndStillRejectsPerPool() {
    ledger.join("c1", "node-1", "default");
    ledger.ack("c1", "ns/a", 5);
    ledger.nack("c1", "ns/a", 4, "older: healed by the ACK of 5");
    ledger.nack("c1", "ns/b", 7, "host x is already routed to pool ns/a");

    assertThat(ledger.answered("c1"))
        .containsExactly(
            java.util.Map.entry("ns/a", new ConnectedDataPlane.Pool(5, 0, 0, null)),
            java.util.Map.entry(
                "ns/b",
                new ConnectedDataPlane.Pool(0, 0, 7, "host x is already routed to pool ns/a")));
    assertThat(ledger.answered("unknown")).isEmpty();
  }

  @Test
  void appliedByAllIsTheLowestAckOfTheServingDataPlanes() {
    assertThat(ledger.appliedByAll("ns/a", DEFAULT)).isEmpty();
    ledger.join("c1", "node-1", "default");
    ledger.join("c2", "node-2", "default");
    ledger.join("c3", "node-3", "edge");
    assertThat(ledger.appliedByAll("ns/a", DEFAULT)).hasValue(0);
    ledger.ack("c1", "ns/a", 7);
    ledger.ack("c2", "ns/a", 5);
    ledger.nack("c2", "ns/a", 7, "no");
    assertThat(ledger.appliedByAll("ns/a", DEFAULT)).hasValue(5);
    assertThat(ledger.appliedByAll("ns/a", Set.of("default", "edge"))).hasValue(0);
    assertThat(ledger.appliedByAll("ns/a", Set.of("other"))).isEmpty();
  }
}
