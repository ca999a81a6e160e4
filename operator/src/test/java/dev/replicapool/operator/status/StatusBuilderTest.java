package dev.replicapool.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberSource;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;
import dev.replicapool.operator.discovery.Member;
import dev.replicapool.operator.health.HealthPolicy;
import dev.replicapool.operator.health.HealthSnapshot;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusBuilderTest {
  static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");

  static StatusBuilder.Row row(int i, MemberState state) {
    boolean routable = state == MemberState.Healthy || state == MemberState.Degraded;
    return new StatusBuilder.Row(
        new Member("10.0.0." + i, 8080, MemberSource.Static, null, false, null, null),
        new HealthSnapshot(
            state, routable ? 1.0 : 0.0, null, 0.0, state + " because", NOW, 0, 0, null));
  }

  static ReplicaPoolStatus build(int panicThresholdPercent, StatusBuilder.Row... rows) {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName("p");
    pool.getMetadata().setNamespace("ns");
    pool.getMetadata().setGeneration(1L);
    pool.setSpec(new ReplicaPoolSpec());
    pool.getSpec().routing.panicThresholdPercent = panicThresholdPercent;
    pool.getSpec().route = ReadinessTest.hosts("p.local");
    return StatusBuilder.build(
        new StatusBuilder.Observation(
            pool,
            HealthPolicy.from(pool.getSpec()),
            List.of(rows),
            new ArrayList<>(),
            List.of(),
            null,
            new StatusBuilder.DataPlaneSync(1, 1, 1, List.of()),
            1,
            NOW));
  }

  static Condition condition(ReplicaPoolStatus s, String type) {
    return Conditions.find(s.conditions, type);
  }

  static StatusBuilder.Row saturated(int i) {
    return new StatusBuilder.Row(
        new Member("10.0.0." + i, 8080, MemberSource.Static, null, false, null, null),
        new HealthSnapshot(
            MemberState.Degraded,
            0.5,
            null,
            0.0,
            "saturated: utilization 0.97 >= 0.90",
            NOW,
            0,
            3,
            0.97));
  }

  @Test
  void saturationAloneGivesItsOwnReasonAndTheRowItsUtilization() {
    ReplicaPoolStatus s = build(0, row(1, MemberState.Healthy), saturated(2));
    Condition d = condition(s, "Degraded");
    assertThat(d.getStatus()).isEqualTo("True");
    assertThat(d.getReason()).isEqualTo("EndpointSaturated");
    assertThat(d.getMessage())
        .isEqualTo("10.0.0.2:8080 Degraded: saturated: utilization 0.97 >= 0.90");
    assertThat(s.endpoints).extracting(e -> e.utilization).containsExactly(null, 0.97);
    // Another cause beside it: the general reason.
    assertThat(
            condition(build(0, saturated(1), row(2, MemberState.Degraded)), "Degraded").getReason())
        .isEqualTo("EndpointDegraded");
  }

  @Test
  void pendingMembersAreRegisteredNotRoutableAndNotSick() {
    ReplicaPoolStatus s =
        build(
            0,
            row(1, MemberState.Healthy),
            row(2, MemberState.Pending),
            row(3, MemberState.Pending));
    assertThat(s.registered).isEqualTo(3);
    assertThat(s.routable).isEqualTo(1);
    assertThat(s.endpoints).extracting(e -> e.state).contains(MemberState.Pending);
    assertThat(condition(s, "Ready").getMessage())
        .isEqualTo("1 of 3 members routable (2 pending their first probes)");
    assertThat(condition(s, "Degraded").getStatus()).isEqualTo("False");
  }

  @Test
  void panicBelowTheThresholdNamesTheShare() {
    ReplicaPoolStatus s =
        build(
            50,
            row(1, MemberState.Healthy),
            row(2, MemberState.Unhealthy),
            row(3, MemberState.Unhealthy));
    Condition d = condition(s, "Degraded");
    assertThat(d.getStatus()).isEqualTo("True");
    assertThat(d.getReason()).isEqualTo("Panic");
    assertThat(d.getMessage())
        .startsWith("1 of 3 members routable, below 50 %: routing to all; 10.0.0.2:8080 Unhealthy");
  }

  @Test
  void noPanicAtTheThresholdOrWhenOff() {
    assertThat(
            condition(
                    build(
                        50,
                        row(1, MemberState.Healthy),
                        row(2, MemberState.Healthy),
                        row(3, MemberState.Unhealthy),
                        row(4, MemberState.Unhealthy)),
                    "Degraded")
                .getReason())
        .isEqualTo("EndpointUnhealthy");
    assertThat(
            condition(
                    build(0, row(1, MemberState.Unhealthy), row(2, MemberState.Unhealthy)),
                    "Degraded")
                .getReason())
        .isEqualTo("EndpointUnhealthy");
  }

  @Test
  void drainingAndPendingMembersDoNotCountTowardsPanic() {
    ReplicaPoolStatus starting =
        build(50, row(1, MemberState.Pending), row(2, MemberState.Pending));
    assertThat(condition(starting, "Degraded").getStatus()).isEqualTo("False");
    ReplicaPoolStatus rollout =
        build(
            50,
            row(1, MemberState.Healthy),
            row(2, MemberState.Draining),
            row(3, MemberState.Draining));
    assertThat(condition(rollout, "Degraded").getReason()).isNotEqualTo("Panic");
  }

  static ReplicaPoolStatus build(
      List<String> problems, StatusBuilder.DataPlaneSync sync, ReplicaPoolStatus old) {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName("p");
    pool.getMetadata().setNamespace("ns");
    pool.getMetadata().setGeneration(2L);
    pool.setSpec(new ReplicaPoolSpec());
    pool.setStatus(old);
    return StatusBuilder.build(
        new StatusBuilder.Observation(
            pool,
            HealthPolicy.from(pool.getSpec()),
            List.of(row(1, MemberState.Healthy)),
            problems,
            List.of(),
            null,
            sync,
            42,
            NOW));
  }

  @Test
  void configurationProblemsAreOneConditionThatListsThem() {
    Condition valid = condition(build(List.of(), null, null), "ConfigurationValid");
    assertThat(valid.getStatus()).isEqualTo("True");
    Condition invalid =
        condition(build(List.of("a is wrong", "b is wrong"), null, null), "ConfigurationValid");
    assertThat(invalid.getStatus()).isEqualTo("False");
    assertThat(invalid.getMessage()).isEqualTo("a is wrong; b is wrong");
  }

  @Test
  void dataPlaneSyncIsUnknownAppliedPendingOrRejected() {
    assertThat(condition(build(List.of(), null, null), "DataPlaneSynced").getMessage())
        .isEqualTo("no data plane of group default is connected");
    Condition applied =
        condition(
            build(List.of(), new StatusBuilder.DataPlaneSync(2, 2, 42, List.of()), null),
            "DataPlaneSynced");
    assertThat(applied.getReason()).isEqualTo("Applied");
    assertThat(applied.getMessage()).isEqualTo("2/2 data planes applied version 42");
    assertThat(
            condition(
                    build(List.of(), new StatusBuilder.DataPlaneSync(2, 1, 42, List.of()), null),
                    "DataPlaneSynced")
                .getReason())
        .isEqualTo("Pending");
    assertThat(
            condition(
                    build(
                        List.of(),
                        new StatusBuilder.DataPlaneSync(2, 1, 42, List.of("dp-2: bad port")),
                        null),
                    "DataPlaneSynced")
                .getReason())
        .isEqualTo("Rejected");
  }

  @Test
  void theDataPlaneSyncedMessageSaysHowLongTheLastVersionTookToConverge() {
    Condition applied =
        condition(
            build(List.of(), new StatusBuilder.DataPlaneSync(2, 2, 42, List.of(), 41, 12.4), null),
            "DataPlaneSynced");
    assertThat(applied.getMessage())
        .isEqualTo(
            "2/2 data planes applied version 42; version 41 reached every data plane 12 ms after"
                + " the change");
    ReplicaPoolStatus fast =
        build(List.of(), new StatusBuilder.DataPlaneSync(2, 2, 42, List.of(), 42, 3.25), null);
    assertThat(condition(fast, "DataPlaneSynced").getMessage())
        .endsWith("; version 42 reached every data plane 3.3 ms after the change");
    // A new figure alone is drift: it never makes a status write of its own at once.
    ReplicaPoolStatus slower =
        build(List.of(), new StatusBuilder.DataPlaneSync(2, 2, 42, List.of(), 42, 250), null);
    assertThat(StatusDiff.classify(slower, fast)).isEqualTo(StatusDiff.Change.DRIFT);
  }

  @Test
  void theSameObservationsGiveAnEqualStatus() {
    ReplicaPoolStatus first = build(List.of(), null, null);
    ReplicaPoolStatus again = build(List.of(), null, first);
    assertThat(again).isEqualTo(first);
    assertThat(first.observedGeneration).isEqualTo(2L);
    assertThat(first.snapshotVersion).isEqualTo(42L);
    assertThat(first.conditions)
        .extracting(Condition::getType)
        .containsExactly(
            "Ready",
            "Accepted",
            "ResolvedRefs",
            "Programmed",
            "Degraded",
            "DataPlaneSynced",
            "ConfigurationValid");
  }
}
