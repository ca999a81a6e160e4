package dev.replicapool.controlplane;

import static dev.replicapool.controlplane.AppliedVersions.Verdict.NEWER;
import static dev.replicapool.controlplane.AppliedVersions.Verdict.OLDER;
import static dev.replicapool.controlplane.AppliedVersions.Verdict.SAME;
import static dev.replicapool.controlplane.Snapshots.pool;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class AppliedVersionsTest {
  final AppliedVersions ledger = new AppliedVersions();

  void applied(String pool, long version) {
    ledger.recordApplied(SnapshotApplier.Change.apply(pool(pool, version, 1)));
  }

  void removed(String pool, long version) {
    ledger.recordApplied(SnapshotApplier.Change.remove(pool, version));
  }

  @Test
  void anyVersionOfAPoolNeverAppliedIsNewer() {
    assertThat(ledger.judge("ns/a", 0)).isEqualTo(NEWER);
    assertThat(ledger.judge("ns/a", 5)).isEqualTo(NEWER);
    assertThat(ledger.applied("ns/a")).isEqualTo(OptionalLong.empty());
  }

  @Test
  void afterAnApplyOlderIsRefusedTheSameIsKnownAndAboveIsNewer() {
    applied("ns/a", 5);
    assertThat(ledger.applied("ns/a")).isEqualTo(OptionalLong.of(5));
    assertThat(ledger.judge("ns/a", 4)).isEqualTo(OLDER);
    assertThat(ledger.judge("ns/a", 5)).isEqualTo(SAME);
    assertThat(ledger.judge("ns/a", 6)).isEqualTo(NEWER);
    assertThat(ledger.judge("ns/b", 4)).isEqualTo(NEWER);
  }

  @Test
  void aRemovalKeepsItsVersionSoThatAnOlderSnapshotIsStillRefused() {
    applied("ns/a", 5);
    removed("ns/a", 6);
    assertThat(ledger.judge("ns/a", 5)).isEqualTo(OLDER);
    assertThat(ledger.judge("ns/a", 6)).isEqualTo(SAME);
    assertThat(ledger.judge("ns/a", 7)).isEqualTo(NEWER);
  }

  @Test
  void aCompleteSyncedRemovesTheAppliedPoolsTheStreamDidNotName() {
    applied("ns/a", 5);
    applied("ns/b", 7);
    ledger.streamOpened();
    ledger.heardOf("ns/b");
    assertThat(ledger.removalsOfUnnamedPools())
        .containsExactly(SnapshotApplier.Change.remove("ns/a", 5));
    // Until the removal succeeded, the pool's version stays.
    assertThat(ledger.judge("ns/a", 5)).isEqualTo(SAME);
    ledger.forget("ns/a");
    assertThat(ledger.judge("ns/a", 1)).isEqualTo(NEWER);
    assertThat(ledger.judge("ns/b", 7)).isEqualTo(SAME);
  }

  @Test
  void aPoolRemovedAlreadyIsForgottenWithoutAnotherRemoval() {
    applied("ns/a", 5);
    removed("ns/a", 6);
    ledger.streamOpened();
    assertThat(ledger.removalsOfUnnamedPools()).isEmpty();
    assertThat(ledger.applied("ns/a")).isEqualTo(OptionalLong.empty());
    assertThat(ledger.judge("ns/a", 1)).isEqualTo(NEWER);
  }

  @Test
  void aPoolAppliedAgainAfterItsRemovalIsRemovedAgainWhenUnnamed() {
    removed("ns/a", 6);
    applied("ns/a", 7);
    ledger.streamOpened();
    assertThat(ledger.removalsOfUnnamedPools())
        .containsExactly(SnapshotApplier.Change.remove("ns/a", 7));
  }

  @Test
  void aNamedRemovedPoolIsKept() {
    removed("ns/a", 6);
    ledger.streamOpened();
    ledger.heardOf("ns/a");
    assertThat(ledger.removalsOfUnnamedPools()).isEmpty();
    assertThat(ledger.judge("ns/a", 6)).isEqualTo(SAME);
  }

  @Test
  void aNewStreamForgetsWhatTheOldOneNamed() {
    applied("ns/a", 5);
    ledger.heardOf("ns/a");
    ledger.streamOpened();
    assertThat(ledger.removalsOfUnnamedPools())
        .containsExactly(SnapshotApplier.Change.remove("ns/a", 5));
  }

  @Test
  void nothingAppliedMeansNothingToRemove() {
    ledger.heardOf("ns/a");
    assertThat(ledger.removalsOfUnnamedPools()).isEmpty();
  }
}
