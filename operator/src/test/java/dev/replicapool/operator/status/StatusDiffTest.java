package dev.replicapool.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.MemberSource;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;
import dev.replicapool.operator.status.StatusDiff.Change;
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
    e.message = "2 probes failed: HTTP 500";
    s.endpoints.add(e);
    change.accept(s);
    return s;
  }

  static Change change(Consumer<ReplicaPoolStatus> change) {
    return StatusDiff.classify(status(change), status(s -> {}));
  }

  @Test
  void nothingStoredYetIsSignificant() {
    assertThat(StatusDiff.classify(status(s -> {}), null)).isEqualTo(Change.SIGNIFICANT);
  }

  @Test
  void theSameStatusIsNoChange() {
    assertThat(change(s -> {})).isEqualTo(Change.NONE);
  }

  @Test
  void figuresThatMoveAllTheTimeAreDrift() {
    assertThat(change(s -> s.endpoints.get(0).latencyP95Millis = 90L)).isEqualTo(Change.DRIFT);
    assertThat(change(s -> s.endpoints.get(0).errorRate = 0.01)).isEqualTo(Change.DRIFT);
    assertThat(change(s -> s.endpoints.get(0).leaseExpiresAt = "2026-12-01T12:00:01Z"))
        .isEqualTo(Change.DRIFT);
    assertThat(change(s -> s.conditions.get(0).setMessage("2 of 1"))).isEqualTo(Change.DRIFT);
    assertThat(change(s -> s.conditions.get(0).setLastTransitionTime("later")))
        .isEqualTo(Change.DRIFT);
    assertThat(change(s -> s.endpoints.get(0).message = "3 probes failed: HTTP 500"))
        .as("the stored row says 2 probes")
        .isEqualTo(Change.DRIFT);
  }

  @Test
  void wordsAndWeightsAUserReadsAreNotable() {
    assertThat(change(s -> s.conditions.get(0).setMessage("1 of 1, version 101")))
        .isEqualTo(Change.NOTABLE);
    assertThat(change(s -> s.endpoints.get(0).message = "2 probes failed: timeout after 100 ms"))
        .isEqualTo(Change.NOTABLE);
    assertThat(change(s -> s.endpoints.get(0).weight = 0.5)).isEqualTo(Change.NOTABLE);
    assertThat(change(s -> s.endpoints.get(0).weight = 0.79)).isEqualTo(Change.NOTABLE);
    assertThat(change(s -> s.snapshotVersion = 101L)).isEqualTo(Change.NOTABLE);
  }

  @Test
  void whatAUserMustSeeIsSignificant() {
    assertThat(change(s -> s.observedGeneration = 4L)).isEqualTo(Change.SIGNIFICANT);
    assertThat(change(s -> s.registered = 2)).isEqualTo(Change.SIGNIFICANT);
    assertThat(change(s -> s.routable = 0)).isEqualTo(Change.SIGNIFICANT);
    assertThat(change(s -> s.degraded = 1)).isEqualTo(Change.SIGNIFICANT);
    assertThat(change(s -> s.conditions.get(0).setStatus("False"))).isEqualTo(Change.SIGNIFICANT);
    assertThat(change(s -> s.conditions.get(0).setReason("NoRoutableEndpoints")))
        .isEqualTo(Change.SIGNIFICANT);
    assertThat(change(s -> s.conditions.get(0).setObservedGeneration(4L)))
        .isEqualTo(Change.SIGNIFICANT);
    assertThat(change(s -> s.conditions.clear())).isEqualTo(Change.SIGNIFICANT);
    assertThat(change(s -> s.endpoints.get(0).state = MemberState.Degraded))
        .isEqualTo(Change.SIGNIFICANT);
    assertThat(change(s -> s.endpoints.get(0).address = "10.0.0.2:8080"))
        .isEqualTo(Change.SIGNIFICANT);
    assertThat(change(s -> s.endpoints.clear())).isEqualTo(Change.SIGNIFICANT);
  }

  @Test
  void aWeightThatReachesOrLeavesZeroIsSignificant() {
    assertThat(change(s -> s.endpoints.get(0).weight = 0.0)).isEqualTo(Change.SIGNIFICANT);
    assertThat(StatusDiff.classify(status(s -> {}), status(s -> s.endpoints.get(0).weight = 0.0)))
        .isEqualTo(Change.SIGNIFICANT);
  }

  @Test
  void capacityFiguresAreSignificant() {
    assertThat(change(s -> s.capacity = new dev.replicapool.api.v1alpha1.CapacityStatus()))
        .isEqualTo(Change.SIGNIFICANT);
  }

  @Test
  void listsAreComparedInOrder() {
    List<EndpointStatus> two = status(s -> {}).endpoints;
    assertThat(StatusDiff.classify(status(s -> s.endpoints.addAll(two)), status(s -> {})))
        .isEqualTo(Change.SIGNIFICANT);
  }
}
