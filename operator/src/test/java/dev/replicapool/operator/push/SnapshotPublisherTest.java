package dev.replicapool.operator.push;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.AccessLog;
import dev.replicapool.api.v1alpha1.AppProtocol;
import dev.replicapool.api.v1alpha1.Idempotent;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.SlowStart;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.UpstreamTlsMaterial;
import dev.replicapool.controlplane.ControlPlaneServer;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class SnapshotPublisherTest {
  static final List<MemberSnapshot> MEMBERS =
      List.of(new MemberSnapshot("127.0.0.1", 9000, 1.0, MemberState.Healthy));
  static final UpstreamTlsMaterial TLS =
      new UpstreamTlsMaterial("CA", "tracking.internal", "CERT", "KEY", false);

  static PoolSnapshot build(AppProtocol protocol, UpstreamTlsMaterial tls) {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.appProtocol = protocol;
    return SnapshotPublisher.build("ns/pool", 7, spec, MEMBERS, null, tls);
  }

  @Test
  void theProtocolGoesOnTheWireByItsSpecName() {
    assertThat(build(AppProtocol.HTTP, null).appProtocol()).isEqualTo("http");
    assertThat(build(AppProtocol.H2C, null).appProtocol()).isEqualTo("kubernetes.io/h2c");
    assertThat(build(AppProtocol.HTTPS, TLS).appProtocol()).isEqualTo("https");
    assertThat(build(AppProtocol.WS, null).appProtocol()).isEqualTo("kubernetes.io/ws");
    assertThat(build(AppProtocol.WSS, TLS).appProtocol()).isEqualTo("kubernetes.io/wss");
  }

  @Test
  void aSpecWithoutProtocolIsHttp() {
    assertThat(build(null, null).appProtocol()).isEqualTo("http");
  }

  @Test
  void upstreamTlsTravelsWithTlsProtocolsOnly() {
    assertThat(build(AppProtocol.HTTPS, TLS).upstreamTls()).isEqualTo(TLS);
    assertThat(build(AppProtocol.WSS, TLS).upstreamTls()).isEqualTo(TLS);
    assertThat(build(AppProtocol.H2C, TLS).upstreamTls()).isNull();
    assertThat(build(AppProtocol.HTTP, TLS).upstreamTls()).isNull();
  }

  @Test
  void theSnapshotIsValidAndKeepsItsOtherFields() {
    PoolSnapshot s = build(AppProtocol.HTTPS, TLS);
    assertThat(s.problems()).isEmpty();
    assertThat(s.members()).isEqualTo(MEMBERS);
    assertThat(s.version()).isEqualTo(7);
    assertThat(s.slowStart()).isNull();
    assertThat(s.panicThresholdPercent()).isZero();
  }

  @Test
  void materialIsNotPrinted() {
    assertThat(TLS.toString()).doesNotContain("KEY").doesNotContain("CERT");
  }

  static final List<MemberSnapshot> PENDING =
      List.of(new MemberSnapshot("10.0.0.1", 8080, 0.0, MemberState.Pending));

  @Test
  void slowStartAndPanicThresholdTravelWithTheSnapshot() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.routing.slowStart = new SlowStart();
    spec.routing.slowStart.windowMillis = 30_000L;
    spec.routing.panicThresholdPercent = 50;

    PoolSnapshot s = SnapshotPublisher.build("ns/p", 3, spec, PENDING, null, null);

    assertThat(s.slowStart()).isSameAs(spec.routing.slowStart);
    assertThat(s.slowStart().aggression).isEqualTo(1.0);
    assertThat(s.slowStart().minWeightPercent).isEqualTo(10);
    assertThat(s.panicThresholdPercent()).isEqualTo(50);
    assertThat(s.members()).extracting(MemberSnapshot::state).containsExactly(MemberState.Pending);
    assertThat(s.problems()).isEmpty();
  }

  @Test
  void withoutThemBothAreOff() {
    PoolSnapshot s = SnapshotPublisher.build("ns/p", 3, new ReplicaPoolSpec(), PENDING, null, null);
    assertThat(s.slowStart()).isNull();
    assertThat(s.panicThresholdPercent()).isZero();
  }

  static Vertx vertx;

  @BeforeAll
  static void vertx() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void closeVertx() {
    vertx.close().await();
  }

  // Never started: publishing stores the snapshot and sends it to no connection.
  final ControlPlaneServer server =
      new ControlPlaneServer(vertx, new ControlPlaneServer.Options("127.0.0.1", 0, "t"));
  final SnapshotPublisher publisher = new SnapshotPublisher(server);
  final List<String> published = new ArrayList<>();

  {
    publisher.onPublished(published::add);
  }

  long publish(ReplicaPoolSpec spec, List<MemberSnapshot> members) {
    return publisher.publish("ns/p", spec, members, null, null);
  }

  @Test
  void aSnapshotIsSentOnceUntilSomethingADataPlaneActsOnChanges() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    long first = publish(spec, MEMBERS);
    assertThat(first).isPositive().isEqualTo(server.latestVersion("ns/p"));
    assertThat(publish(spec, MEMBERS)).isEqualTo(first);
    assertThat(publish(spec, List.copyOf(MEMBERS))).isEqualTo(first);
    assertThat(published).containsExactly("ns/p");

    long second =
        publish(spec, List.of(new MemberSnapshot("127.0.0.1", 9000, 0.5, MemberState.Degraded)));
    assertThat(second).isGreaterThan(first).isEqualTo(publisher.version("ns/p"));
    assertThat(published).containsExactly("ns/p", "ns/p");
  }

  @Test
  void aChangedSettingIsSentAlthoughItsObjectIsNew() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    long first = publish(spec, MEMBERS);
    ReplicaPoolSpec same = new ReplicaPoolSpec();
    assertThat(publish(same, MEMBERS)).isEqualTo(first);

    ReplicaPoolSpec slow = new ReplicaPoolSpec();
    slow.routing.slowStart = new SlowStart();
    assertThat(publish(slow, MEMBERS)).isGreaterThan(first);
  }

  @Test
  void whatTheMembersMayReceiveTwiceTravelsAndAChangeIsANewVersion() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    long first = publish(spec, MEMBERS);
    ReplicaPoolSpec named = new ReplicaPoolSpec();
    named.routing.idempotent = new Idempotent();
    named.routing.idempotent.grpcMethods = List.of("/grpc.health.v1.Health/*");
    assertThat(publish(named, MEMBERS)).isGreaterThan(first);
    PoolSnapshot s = SnapshotPublisher.build("ns/p", 3, named, MEMBERS, null, null);
    assertThat(s.idempotent().grpcMethods).containsExactly("/grpc.health.v1.Health/*");
  }

  @Test
  void forwardingLoadReportsTravelsOnlyWhenOnAndAChangeIsANewVersion() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    long first = publish(spec, MEMBERS);
    assertThat(SnapshotPublisher.build("ns/p", 3, spec, MEMBERS, null, null).forwardLoadReports())
        .as("the default (false) is not written on the wire")
        .isNull();
    ReplicaPoolSpec forwarding = new ReplicaPoolSpec();
    forwarding.routing.forwardLoadReports = true;
    assertThat(publish(forwarding, MEMBERS)).isGreaterThan(first);
    assertThat(
            SnapshotPublisher.build("ns/p", 3, forwarding, MEMBERS, null, null)
                .forwardLoadReports())
        .isTrue();
  }

  @Test
  void theAccessLogSettingsTravelAndAChangeIsANewVersion() {
    long first = publish(new ReplicaPoolSpec(), MEMBERS);
    ReplicaPoolSpec logged = new ReplicaPoolSpec();
    logged.accessLog = new AccessLog();
    logged.accessLog.enabled = true;
    logged.accessLog.sampleRate = 0.25;
    long second = publish(logged, MEMBERS);
    assertThat(second).isGreaterThan(first);
    ReplicaPoolSpec errorsOnly = new ReplicaPoolSpec();
    errorsOnly.accessLog = new AccessLog();
    errorsOnly.accessLog.enabled = true;
    errorsOnly.accessLog.sampleRate = 0.25;
    errorsOnly.accessLog.errorsOnly = true;
    assertThat(publish(errorsOnly, MEMBERS)).isGreaterThan(second);
    PoolSnapshot s = SnapshotPublisher.build("ns/p", 3, errorsOnly, MEMBERS, null, null);
    assertThat(s.accessLog().enabled).isTrue();
    assertThat(s.accessLog().sampleRate).isEqualTo(0.25);
    assertThat(s.accessLog().errorsOnly).isTrue();
  }

  @Test
  void newDataPlaneGroupsAreANewVersion() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    long first = publish(spec, MEMBERS);
    ReplicaPoolSpec elsewhere = new ReplicaPoolSpec();
    elsewhere.dataPlaneGroups = List.of("edge");
    assertThat(publish(elsewhere, MEMBERS)).isGreaterThan(first);
  }

  @Test
  void aRemovedPoolIsRemovedFromTheDataPlanesOnce() {
    publisher.remove("ns/never");
    assertThat(server.latestVersion("ns/never")).isZero();

    long version = publish(new ReplicaPoolSpec(), MEMBERS);
    publisher.remove("ns/p");
    assertThat(publisher.version("ns/p")).isZero();
    long removal = server.latestVersion("ns/p");
    assertThat(removal).isGreaterThan(version);
    publisher.remove("ns/p");
    assertThat(server.latestVersion("ns/p")).isEqualTo(removal);
  }
}
