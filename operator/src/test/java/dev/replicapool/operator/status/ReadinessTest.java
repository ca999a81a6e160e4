package dev.replicapool.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberSource;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.operator.discovery.Member;
import dev.replicapool.operator.health.HealthPolicy;
import dev.replicapool.operator.health.HealthSnapshot;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Ready only when a request can reach a routable member: each prerequisite (Accepted, ResolvedRefs,
 * Programmed, a routable member) turned False on its own, and Ready with it, its reason naming why.
 */
class ReadinessTest {
  static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
  static final StatusBuilder.DataPlaneSync APPLIED =
      new StatusBuilder.DataPlaneSync(2, 2, 7, List.of());

  static Route hosts(String... hosts) {
    Route r = new Route();
    r.hosts = List.of(hosts);
    return r;
  }

  /** A pool that can be reached: routed by tracking.local, refs resolved, applied, one member. */
  private ReplicaPool pool = pool(hosts("tracking.local"));

  private List<String> unresolvedRefs = List.of();
  private StatusBuilder.DataPlaneSync sync = APPLIED;
  private MemberState member = MemberState.Healthy;

  static ReplicaPool pool(Route route) {
    ReplicaPool p = new ReplicaPool();
    p.getMetadata().setName("tracking");
    p.getMetadata().setNamespace("shop");
    p.getMetadata().setGeneration(3L);
    p.setSpec(new ReplicaPoolSpec());
    p.getSpec().route = route;
    return p;
  }

  private ReplicaPoolStatus status() {
    boolean routable = member == MemberState.Healthy || member == MemberState.Degraded;
    var row =
        new StatusBuilder.Row(
            new Member("10.0.0.1", 8080, MemberSource.Static, null, false, null, null),
            new HealthSnapshot(member, routable ? 1.0 : 0.0, null, 0.0, "why", NOW, 0, 0, null));
    return StatusBuilder.build(
        new StatusBuilder.Observation(
            pool,
            HealthPolicy.from(pool.getSpec()),
            List.of(row),
            unresolvedRefs,
            unresolvedRefs,
            null,
            sync,
            7,
            NOW));
  }

  private static Condition condition(ReplicaPoolStatus s, String type) {
    return Conditions.find(s.conditions, type);
  }

  private static void assertFalse(ReplicaPoolStatus s, String type, String reason) {
    assertThat(condition(s, type).getStatus()).as(type).isEqualTo("False");
    assertThat(condition(s, type).getReason()).as(type).isEqualTo(reason);
    assertThat(condition(s, "Ready").getStatus()).isEqualTo("False");
    assertThat(condition(s, "Ready").getReason()).isEqualTo(reason);
    assertThat(condition(s, "Ready").getMessage()).startsWith(type + " is False: ");
  }

  @Test
  void aReachablePoolIsReadyAndEveryPrerequisiteTrue() {
    ReplicaPoolStatus s = status();
    assertThat(condition(s, "Ready").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Ready").getReason()).isEqualTo("EndpointsRoutable");
    assertThat(condition(s, "Accepted").getMessage()).isEqualTo("routed by hosts tracking.local");
    assertThat(condition(s, "ResolvedRefs").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Programmed").getMessage())
        .isEqualTo("2 of 2 data planes applied version 7");
  }

  @Test
  void withoutHostsOrPortItIsNotAccepted() {
    pool = pool(null);
    assertFalse(status(), "Accepted", "NoRoute");
    pool = pool(new Route());
    ReplicaPoolStatus s = status();
    assertFalse(s, "Accepted", "NoRoute");
    assertThat(condition(s, "Ready").getMessage())
        .contains("neither spec.route.hosts nor spec.route.port is set");

    Route port = new Route();
    port.port = 9000;
    pool = pool(port);
    assertThat(condition(status(), "Accepted").getMessage()).isEqualTo("routed by port 9000");
    assertThat(condition(status(), "Ready").getStatus()).isEqualTo("True");
  }

  @Test
  void aMissingTlsSecretLeavesRefsUnresolved() {
    unresolvedRefs =
        List.of("TLS Secret tracking-tls not found (it must be of type kubernetes.io/tls)");
    ReplicaPoolStatus s = status();
    assertFalse(s, "ResolvedRefs", "InvalidCertificateRef");
    assertThat(condition(s, "ResolvedRefs").getMessage()).isEqualTo(unresolvedRefs.get(0));
    assertThat(condition(s, "ConfigurationValid").getStatus()).isEqualTo("False");
  }

  @Test
  void noDataPlaneConnectedIsNotProgrammed() {
    sync = null;
    assertFalse(status(), "Programmed", "NoDataPlanes");
    sync = new StatusBuilder.DataPlaneSync(0, 0, 7, List.of());
    ReplicaPoolStatus s = status();
    assertFalse(s, "Programmed", "NoDataPlanes");
    assertThat(condition(s, "Programmed").getMessage())
        .isEqualTo("no data plane of group default is connected");
  }

  @Test
  void everyDataPlaneRefusingIsNotProgrammedAndSaysWhy() {
    sync =
        new StatusBuilder.DataPlaneSync(
            2,
            0,
            7,
            List.of(
                "dp-1: version 7: host tracking.local is already routed to pool shop/other",
                "dp-2: version 7: host tracking.local is already routed to pool shop/other"));
    ReplicaPoolStatus s = status();
    assertFalse(s, "Programmed", "Rejected");
    assertThat(condition(s, "Ready").getMessage())
        .contains("host tracking.local is already routed to pool shop/other");
    assertThat(condition(s, "DataPlaneSynced").getReason()).isEqualTo("Rejected");
  }

  @Test
  void oneDataPlaneApplyingIsEnoughToBeProgrammed() {
    sync = new StatusBuilder.DataPlaneSync(2, 1, 7, List.of("dp-2: version 7: no port"));
    ReplicaPoolStatus s = status();
    assertThat(condition(s, "Programmed").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Programmed").getMessage())
        .isEqualTo("1 of 2 data planes applied version 7; 1 rejected it: dp-2: version 7: no port");
    assertThat(condition(s, "Ready").getStatus()).isEqualTo("True");
    assertThat(condition(s, "DataPlaneSynced").getStatus()).isEqualTo("False");
  }

  @Test
  void dataPlanesThatHaveNotAnsweredYetArePending() {
    sync = new StatusBuilder.DataPlaneSync(2, 0, 7, List.of());
    assertFalse(status(), "Programmed", "Pending");
  }

  @Test
  void noRoutableMemberIsNotReadyThoughEverythingElseIs() {
    member = MemberState.Unhealthy;
    ReplicaPoolStatus s = status();
    assertThat(condition(s, "Programmed").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Ready").getStatus()).isEqualTo("False");
    assertThat(condition(s, "Ready").getReason()).isEqualTo("NoRoutableEndpoints");
    assertThat(condition(s, "Ready").getMessage()).isEqualTo("none of 1 members is routable");
  }

  @Test
  void theFirstPrerequisiteThatFailsNamesTheReason() {
    pool = pool(null);
    sync = null;
    member = MemberState.Unhealthy;
    assertThat(condition(status(), "Ready").getReason()).isEqualTo("NoRoute");
  }

  @Test
  void lastTransitionTimeIsKeptWhileTheStatusStays() {
    sync = null;
    ReplicaPoolStatus first = status();
    pool.setStatus(first);
    sync = new StatusBuilder.DataPlaneSync(2, 0, 7, List.of()); // still False, another reason
    ReplicaPoolStatus second = status();
    assertThat(condition(second, "Programmed").getReason()).isEqualTo("Pending");
    assertThat(condition(second, "Programmed").getLastTransitionTime())
        .isEqualTo(condition(first, "Programmed").getLastTransitionTime());
  }

  @Test
  void membersKeptUntilNewOnesAreRoutableKeepItReady() {
    var kept =
        new StatusBuilder.Row(
            new Member("10.0.0.1", 8080, MemberSource.Static, null, false, null, null),
            new HealthSnapshot(MemberState.Draining, 1.0, null, 0.0, "kept", NOW, 0, 0, null));
    var pending =
        new StatusBuilder.Row(
            new Member("10.0.0.2", 8080, MemberSource.Static, null, false, null, null),
            new HealthSnapshot(MemberState.Pending, 0.0, null, 0.0, "waiting", NOW, 0, 0, null));
    ReplicaPoolStatus s =
        StatusBuilder.build(
            new StatusBuilder.Observation(
                pool,
                HealthPolicy.from(pool.getSpec()),
                List.of(kept, pending),
                List.of(),
                List.of(),
                null,
                sync,
                7,
                NOW));

    assertThat(condition(s, "Ready").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Ready").getMessage())
        .isEqualTo(
            "0 of 2 members routable (1 pending their first probes); 1 leaving member serves until"
                + " new ones are routable");
  }

  @Test
  void aTerminatingPodAloneDoesNotMakeItReady() {
    member = MemberState.Draining;
    assertThat(condition(status(), "Ready").getStatus()).isEqualTo("False");
  }
}
