package dev.replicapool.operator.push;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.SlowStart;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import java.util.List;
import org.junit.jupiter.api.Test;

class SnapshotPublisherTest {
  static final List<MemberSnapshot> MEMBERS =
      List.of(new MemberSnapshot("10.0.0.1", 8080, 0.0, MemberState.Pending));

  @Test
  void slowStartAndPanicThresholdTravelWithTheSnapshot() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.routing.slowStart = new SlowStart();
    spec.routing.slowStart.windowMillis = 30_000L;
    spec.routing.panicThresholdPercent = 50;

    PoolSnapshot s = SnapshotPublisher.build("ns/p", 3, spec, MEMBERS, null);

    assertThat(s.slowStart()).isSameAs(spec.routing.slowStart);
    assertThat(s.slowStart().aggression).isEqualTo(1.0);
    assertThat(s.slowStart().minWeightPercent).isEqualTo(10);
    assertThat(s.panicThresholdPercent()).isEqualTo(50);
    assertThat(s.members()).extracting(MemberSnapshot::state).containsExactly(MemberState.Pending);
    assertThat(s.problems()).isEmpty();
  }

  @Test
  void withoutThemBothAreOff() {
    PoolSnapshot s = SnapshotPublisher.build("ns/p", 3, new ReplicaPoolSpec(), MEMBERS, null);
    assertThat(s.slowStart()).isNull();
    assertThat(s.panicThresholdPercent()).isZero();
  }
}
