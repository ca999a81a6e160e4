package dev.replicapool.controlplane;

import static dev.replicapool.controlplane.Snapshots.pool;
import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.StreamMessage;
import org.junit.jupiter.api.Test;

class FrameTriageTest {
  final AppliedVersions applied = new AppliedVersions();
  final FrameTriage triage = new FrameTriage(applied);

  @Test
  void aNewSnapshotIsApplied() {
    PoolSnapshot s = pool("ns/a", 5, 1);
    assertThat(triage.judge(StreamMessage.snapshot(s)))
        .isEqualTo(FrameTriage.Fate.apply(SnapshotApplier.Change.apply(s)));
  }

  @Test
  void theAppliedVersionAgainIsAckedWithoutApplying() {
    applied.recordApplied(SnapshotApplier.Change.apply(pool("ns/a", 5, 1)));
    assertThat(triage.judge(StreamMessage.snapshot(pool("ns/a", 5, 1))))
        .isEqualTo(FrameTriage.Fate.answer(StreamMessage.ack("ns/a", 5)));
  }

  @Test
  void anOlderSnapshotIsNacked() {
    applied.recordApplied(SnapshotApplier.Change.apply(pool("ns/a", 5, 1)));
    assertThat(triage.judge(StreamMessage.snapshot(pool("ns/a", 4, 1))))
        .isEqualTo(
            FrameTriage.Fate.answer(
                StreamMessage.nack(
                    "ns/a", 4, "version 4 is older than the applied version 5; ignored")));
  }

  @Test
  void anInvalidSnapshotIsNackedWithItsProblems() {
    PoolSnapshot bad = pool("ns/a", 5, -1);
    assertThat(bad.problems()).isNotEmpty();
    FrameTriage.Fate fate = triage.judge(StreamMessage.snapshot(bad));
    assertThat(fate.change()).isNull();
    assertThat(fate.answer().type()).isEqualTo(StreamMessage.Type.nack);
    assertThat(fate.answer().error()).startsWith("invalid snapshot: ");
  }

  @Test
  void aFrameWhosePoolDiffersFromItsSnapshotsIsNacked() {
    PoolSnapshot s = pool("ns/a", 5, 1);
    StreamMessage m =
        new StreamMessage(StreamMessage.Type.snapshot, null, null, "ns/b", 5L, s, null, null, null);
    assertThat(triage.judge(m))
        .isEqualTo(
            FrameTriage.Fate.answer(
                StreamMessage.nack("ns/b", 5, "frame pool differs from snapshot pool")));
  }

  @Test
  void aSnapshotFrameWithoutASnapshotIsNackedWhenItNamesAPool() {
    StreamMessage named =
        new StreamMessage(
            StreamMessage.Type.snapshot, null, null, "ns/a", 5L, null, null, null, null);
    assertThat(triage.judge(named))
        .isEqualTo(
            FrameTriage.Fate.answer(
                StreamMessage.nack("ns/a", 5, "snapshot frame without a snapshot")));
    StreamMessage anonymous =
        new StreamMessage(
            StreamMessage.Type.snapshot, null, null, null, null, null, null, null, null);
    assertThat(triage.judge(anonymous)).isEqualTo(FrameTriage.Fate.answer(null));
  }

  @Test
  void aNewRemovalIsApplied() {
    assertThat(triage.judge(StreamMessage.remove("ns/a", 5)))
        .isEqualTo(FrameTriage.Fate.apply(SnapshotApplier.Change.remove("ns/a", 5)));
  }

  @Test
  void anOlderRemovalIsNackedAndTheSameOneAcked() {
    applied.recordApplied(SnapshotApplier.Change.apply(pool("ns/a", 5, 1)));
    assertThat(triage.judge(StreamMessage.remove("ns/a", 4)))
        .isEqualTo(
            FrameTriage.Fate.answer(
                StreamMessage.nack(
                    "ns/a", 4, "removal version 4 is older than the applied version 5")));
    assertThat(triage.judge(StreamMessage.remove("ns/a", 5)))
        .isEqualTo(FrameTriage.Fate.answer(StreamMessage.ack("ns/a", 5)));
  }

  @Test
  void aRemovalWithoutPoolOrVersionGetsNoAnswer() {
    StreamMessage m =
        new StreamMessage(
            StreamMessage.Type.remove, null, null, "ns/a", null, null, null, null, null);
    assertThat(triage.judge(m)).isEqualTo(FrameTriage.Fate.answer(null));
  }
}
