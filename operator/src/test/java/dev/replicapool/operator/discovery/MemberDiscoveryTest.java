package dev.replicapool.operator.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.api.v1alpha1.MemberSource;
import dev.replicapool.api.v1alpha1.Registration;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.operator.readiness.RoutableGate;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemberDiscoveryTest {
  static final long NOW = Instant.parse("2026-12-01T12:00:00Z").toEpochMilli();
  final LeaseTracker tracker = new LeaseTracker(() -> NOW);
  final LeaseWatch watch = new LeaseWatch();
  final MemberDiscovery discovery = new MemberDiscovery(new LeaseExpiry(tracker, watch));
  final ReplicaPool pool = new ReplicaPool();

  MemberDiscoveryTest() {
    pool.getMetadata().setName("web");
    pool.getMetadata().setNamespace("shop");
    pool.setSpec(new ReplicaPoolSpec());
  }

  ReplicaPoolSpec spec() {
    return pool.getSpec();
  }

  void selectWeb() {
    spec().selector = new LabelSelectorBuilder().addToMatchLabels("app", "web").build();
    spec().port = 8080;
  }

  static Pod pod(String name, String app, String ip, String... trueConditions) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .addToLabels("app", app)
            .endMetadata()
            .withNewStatus()
            .withPodIP(ip)
            .endStatus();
    for (String type : trueConditions) {
      b.editStatus().addNewCondition().withType(type).withStatus("True").endCondition().endStatus();
    }
    return b.build();
  }

  static Lease lease(String name, Map<String, String> annotations, long renewedMillis) {
    return new LeaseBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("shop")
        .addToLabels(LeaseConventions.POOL_LABEL, "web")
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withRenewTime(ZonedDateTime.ofInstant(Instant.ofEpochMilli(renewedMillis), ZoneOffset.UTC))
        .endSpec()
        .build();
  }

  /** The Lease watch live and sampled from {@code from} to NOW, its last event just now. */
  void watchLiveSince(long from) {
    for (long t = from; t <= NOW; t += 20) {
      watch.sample(true, t);
    }
    watch.eventDelivered(NOW);
  }

  MemberDiscovery.Result discover(List<Pod> pods, List<Lease> leases) {
    return discovery.discover(pool, pods, leases, NOW);
  }

  @Test
  void readyPodsOfTheSelectorAreMembersOnThePoolsPort() {
    selectWeb();
    MemberDiscovery.Result r =
        discover(
            List.of(
                pod("a", "web", "10.0.0.1", "Ready"),
                pod("b", "web", "10.0.0.2"), // selected, not Ready
                pod("c", "web", null, "Ready"), // no IP yet
                pod("d", "other", "10.0.0.4", "Ready")),
            List.of());
    assertThat(r.members())
        .containsExactly(new Member("10.0.0.1", 8080, MemberSource.Pod, "a", false, null, null));
    assertThat(r.selectedPods()).isEqualTo(3);
    assertThat(r.problems()).isEmpty();
  }

  @Test
  void aTerminatingPodIsAMemberThatDrains() {
    selectWeb();
    Pod p = pod("a", "web", "10.0.0.1");
    p.getMetadata().setDeletionTimestamp("2026-12-01T12:00:00Z");
    assertThat(discover(List.of(p), List.of()).members())
        .singleElement()
        .extracting(Member::draining)
        .isEqualTo(true);
  }

  @Test
  void theDrainAnnotationDrainsAPodUntilItIsGoneAndATerminatingOneStaysFinal() {
    selectWeb();
    Pod p = pod("a", "web", "10.0.0.1", "Ready");
    p.getMetadata().setAnnotations(Map.of(LeaseConventions.DRAIN_ANNOTATION, "true"));
    Member m = discover(List.of(p), List.of()).members().get(0);
    assertThat(m.drainedBy()).isEqualTo("drained by annotation replicapool.dev/drain");
    assertThat(m.draining()).isFalse();

    p.getMetadata().setAnnotations(Map.of(LeaseConventions.DRAIN_ANNOTATION, "false"));
    assertThat(discover(List.of(p), List.of()).members().get(0).drainedBy()).isNull();
    p.getMetadata().setAnnotations(null);
    assertThat(discover(List.of(p), List.of()).members().get(0).drainedBy()).isNull();
  }

  @Test
  void aStaticEndpointWithDrainTrueIsDrained() {
    spec().port = 8080;
    StaticEndpoint drained = new StaticEndpoint("10.0.0.1", null);
    drained.drain = true;
    StaticEndpoint notDrained = new StaticEndpoint("10.0.0.2", null);
    notDrained.drain = false;
    spec().endpoints = List.of(drained, notDrained, new StaticEndpoint("10.0.0.3", null));
    assertThat(discover(List.of(), List.of()).members())
        .extracting(Member::drainedBy)
        .containsExactly("drained by drain: true in spec.endpoints", null, null);
  }

  @Test
  void theDrainAnnotationDrainsALease() {
    spec().registration = new Registration();
    Lease l =
        lease(
            "web-a",
            Map.of(
                LeaseConventions.ADDRESS_ANNOTATION, "10.0.0.1:8080",
                LeaseConventions.DRAIN_ANNOTATION, "true"),
            NOW - 100);
    watchLiveSince(NOW - 5_000);
    assertThat(discover(List.of(), List.of(l)).members())
        .singleElement()
        .extracting(Member::drainedBy)
        .isEqualTo("drained by annotation replicapool.dev/drain");
  }

  @Test
  void aPodWithTheRoutableGateCountsOnceItsContainersAreReady() {
    selectWeb();
    Pod gated = pod("a", "web", "10.0.0.1", "ContainersReady");
    gated.setSpec(new io.fabric8.kubernetes.api.model.PodSpec());
    gated
        .getSpec()
        .setReadinessGates(
            List.of(
                new io.fabric8.kubernetes.api.model.PodReadinessGate(RoutableGate.CONDITION_TYPE)));
    Pod ungated = pod("b", "web", "10.0.0.2", "ContainersReady");
    assertThat(discover(List.of(gated, ungated), List.of()).members())
        .extracting(Member::name)
        .containsExactly("a");
  }

  @Test
  void staticEndpointsTakeTheirOwnPortOrThePools() {
    spec().port = 8080;
    spec().endpoints =
        List.of(new StaticEndpoint("b.internal", 9000), new StaticEndpoint("a.internal", null));
    assertThat(discover(List.of(), List.of()).members())
        .extracting(Member::address)
        .containsExactly("a.internal:8080", "b.internal:9000");
  }

  @Test
  void aStaticEndpointWithoutAnyPortIsAProblem() {
    spec().endpoints = List.of(new StaticEndpoint("a.internal", null));
    MemberDiscovery.Result r = discover(List.of(), List.of());
    assertThat(r.members()).isEmpty();
    assertThat(r.problems()).containsExactly("endpoint a.internal has no port");
  }

  @Test
  void aLeaseIsAMemberUntilItsDurationPassesWithoutRenewal() {
    spec().registration = new Registration();
    Lease fresh =
        lease(
            "web-a",
            Map.of(
                LeaseConventions.ADDRESS_ANNOTATION, "10.0.0.1:8080",
                LeaseConventions.HEALTHY_ANNOTATION, "false"),
            NOW - 100);
    Lease stale =
        lease("web-b", Map.of(LeaseConventions.ADDRESS_ANNOTATION, "10.0.0.2:8080"), NOW - 900);
    watchLiveSince(NOW - 5_000);
    MemberDiscovery.Result r = discover(List.of(), List.of(fresh, stale));
    assertThat(r.members())
        .containsExactly(
            new Member("10.0.0.1", 8080, MemberSource.Lease, "web-a", false, false, NOW + 800));
    assertThat(discovery.isExpired(stale, 900, NOW)).isTrue();
    assertThat(discovery.isExpired(fresh, 900, NOW)).isFalse();
  }

  @Test
  void aSilenceTheWatchCannotVouchForKeepsTheMemberToBeLookedAtAgain() {
    spec().registration = new Registration();
    Lease stale =
        lease("web-b", Map.of(LeaseConventions.ADDRESS_ANNOTATION, "10.0.0.2:8080"), NOW - 900);
    // The watch came back after the renewal: nobody heard what happened in between.
    watchLiveSince(NOW - 500);
    assertThat(discover(List.of(), List.of(stale)).members())
        .containsExactly(
            new Member(
                "10.0.0.2",
                8080,
                MemberSource.Lease,
                "web-b",
                false,
                true,
                NOW + LeaseExpiry.RECHECK_MILLIS));
    assertThat(discovery.isExpired(stale, 900, NOW)).isFalse();
  }

  @Test
  void aLeaseWithoutAUsableAddressIsAProblem() {
    spec().registration = new Registration();
    MemberDiscovery.Result r =
        discover(
            List.of(),
            List.of(
                lease("web-a", Map.of(), NOW),
                lease("web-b", Map.of(LeaseConventions.ADDRESS_ANNOTATION, "10.0.0.2:http"), NOW),
                lease("web-c", Map.of(LeaseConventions.ADDRESS_ANNOTATION, "10.0.0.3:0"), NOW)));
    assertThat(r.members()).isEmpty();
    assertThat(r.problems())
        .containsExactly(
            "Lease web-a has no " + LeaseConventions.ADDRESS_ANNOTATION + " annotation",
            "Lease web-b has an invalid address 10.0.0.2:http",
            "Lease web-c has an invalid address 10.0.0.3:0");
  }

  @Test
  void anAddressFoundTwiceIsOneMemberAndThePodWins() {
    selectWeb();
    spec().endpoints = List.of(new StaticEndpoint("10.0.0.1", 8080));
    spec().registration = new Registration();
    MemberDiscovery.Result r =
        discover(
            List.of(pod("a", "web", "10.0.0.1", "Ready")),
            List.of(
                lease("web-a", Map.of(LeaseConventions.ADDRESS_ANNOTATION, "10.0.0.1:8080"), NOW)));
    assertThat(r.members()).extracting(Member::source).containsExactly(MemberSource.Pod);
  }

  @Test
  void anUnusableSelectorIsAProblem() {
    selectWeb();
    spec()
        .selector
        .setMatchExpressions(
            List.of(
                new LabelSelectorRequirementBuilder().withKey("tier").withOperator("In").build()));
    assertThat(discover(List.of(), List.of()).problems())
        .containsExactly("selector expression on key tier: operator In needs at least one value");
  }

  @Test
  void onlyStaticEndpointsAndPodsStillReadyAtTheirIpLeaveByAnEdit() {
    Member podA = new Member("10.0.0.1", 8080, MemberSource.Pod, "a", false, null, null);
    Member stat = new Member("10.0.0.9", 80, MemberSource.Static, null, false, null, null);
    Member lease = new Member("10.0.0.8", 80, MemberSource.Lease, "l", false, true, 1L);

    assertThat(MemberDiscovery.leftByEdit(stat, List.of())).isTrue();
    assertThat(MemberDiscovery.leftByEdit(lease, List.of())).isFalse();
    // Relabelled, still Ready: the selector let it go.
    assertThat(MemberDiscovery.leftByEdit(podA, List.of(pod("a", "old", "10.0.0.1", "Ready"))))
        .isTrue();
    assertThat(MemberDiscovery.leftByEdit(podA, List.of(pod("a", "old", "10.0.0.1")))).isFalse();
    assertThat(MemberDiscovery.leftByEdit(podA, List.of(pod("a", "old", "10.0.0.7", "Ready"))))
        .isFalse();
    assertThat(MemberDiscovery.leftByEdit(podA, List.of())).isFalse();
  }
}
