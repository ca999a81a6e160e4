package dev.replicapool.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.MemberSource;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class StatusDiffTest {
  static final String T0 = "2026-12-01T12:00:00Z";

  static ReplicaPoolStatus status(Consumer<ReplicaPoolStatus> change) {
    ReplicaPoolStatus s = new ReplicaPoolStatus();
    s.observedGeneration = 3L;
    s.registered = 1;
    s.routable = 1;
    s.snapshotVersion = 100L;
    s.conditions.add(Conditions.of(Conditions.READY, true, "EndpointsRoutable", "1 of 1", 3, T0));
    EndpointStatus e = new EndpointStatus();
    e.address = "10.0.0.1:8080";
    e.source = MemberSource.Static;
    e.state = MemberState.Healthy;
    e.weight = 0.8;
    e.latencyP95Millis = 12L;
    e.leaseExpiresAt = T0;
    s.endpoints.add(e);
    change.accept(s);
    return s;
  }

  static boolean significant(Consumer<ReplicaPoolStatus> change) {
    return StatusDiff.significant(status(change), status(s -> {}));
  }

  @Test
  void nothingStoredYetIsSignificant() {
    assertThat(StatusDiff.significant(status(s -> {}), null)).isTrue();
  }

  @Test
  void driftWaits() {
    assertThat(significant(s -> {})).isFalse();
    assertThat(significant(s -> s.endpoints.get(0).weight = 0.5)).isFalse();
    assertThat(significant(s -> s.endpoints.get(0).latencyP95Millis = 90L)).isFalse();
    assertThat(significant(s -> s.endpoints.get(0).leaseExpiresAt = "2026-12-01T12:00:01Z"))
        .isFalse();
    assertThat(significant(s -> s.snapshotVersion = 101L)).isFalse();
    assertThat(significant(s -> s.conditions.get(0).setMessage("1 of 1, version 101"))).isFalse();
    assertThat(significant(s -> s.conditions.get(0).setLastTransitionTime("later"))).isFalse();
  }

  @Test
  void whatAUserMustSeeIsSignificant() {
    assertThat(significant(s -> s.observedGeneration = 4L)).isTrue();
    assertThat(significant(s -> s.registered = 2)).isTrue();
    assertThat(significant(s -> s.routable = 0)).isTrue();
    assertThat(significant(s -> s.conditions.get(0).setStatus("False"))).isTrue();
    assertThat(significant(s -> s.conditions.get(0).setReason("NoRoutableEndpoints"))).isTrue();
    assertThat(significant(s -> s.conditions.get(0).setObservedGeneration(4L))).isTrue();
    assertThat(significant(s -> s.conditions.clear())).isTrue();
    assertThat(significant(s -> s.endpoints.get(0).state = MemberState.Degraded)).isTrue();
    assertThat(significant(s -> s.endpoints.get(0).address = "10.0.0.2:8080")).isTrue();
    assertThat(significant(s -> s.endpoints.clear())).isTrue();
  }

  @Test
  void aWeightThatReachesOrLeavesZeroIsSignificant() {
    assertThat(significant(s -> s.endpoints.get(0).weight = 0.0)).isTrue();
    assertThat(
            StatusDiff.significant(status(s -> {}), status(s -> s.endpoints.get(0).weight = 0.0)))
        .isTrue();
  }

  @Test
  void capacityFiguresAreSignificant() {
    assertThat(significant(s -> s.capacity = new dev.replicapool.api.v1alpha1.CapacityStatus()))
        .isTrue();
  }

  @Test
  void listsAreComparedInOrder() {
    List<EndpointStatus> two = status(s -> {}).endpoints;
    assertThat(StatusDiff.significant(status(s -> s.endpoints.addAll(two)), status(s -> {})))
        .isTrue();
  }
}
