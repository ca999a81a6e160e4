package dev.replicapool.dataplane.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.AdaptiveRouting;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import dev.replicapool.dataplane.routing.EjectionEvents;
import dev.replicapool.dataplane.routing.RouterSettings;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PoolRuntimeFactoryTest {
  final Vertx vertx = Vertx.vertx();
  final List<String> eventsAskedFor = new ArrayList<>();
  final PoolRuntimeFactory factory =
      new PoolRuntimeFactory(
          vertx,
          System::nanoTime,
          () -> new Random(1),
          pool -> {
            eventsAskedFor.add(pool);
            return EjectionEvents.NONE;
          });

  @AfterEach
  void close() {
    vertx.close().await();
  }

  static PoolSnapshotBuilder snapshot(long version, int... ports) {
    List<MemberSnapshot> members = new ArrayList<>();
    for (int p : ports) {
      members.add(new MemberSnapshot("10.0.0.1", p, 1.0, MemberState.Healthy));
    }
    return PoolSnapshotBuilder.builder()
        .pool("a/p")
        .version(version)
        .policy(RoutingPolicy.Adaptive)
        .hosts(List.of("p.example"))
        .members(members);
  }

  @Test
  void aPlainPoolGetsTheLatencyBaselineOfTheApiAndTheDefaultIdleTimeout() {
    factory.defaultIdleTimeoutMillis(5_000);
    PoolSnapshot s = snapshot(1, 1).port(18080).build();

    PoolRuntime p = factory.build(s, List.of("p.example"), null);

    assertThat(p.snapshot()).isSameAs(s);
    assertThat(p.hosts()).containsExactly("p.example");
    assertThat(p.port()).isEqualTo(18080);
    assertThat(p.tls()).isNull();
    assertThat(p.tlsMembers()).isFalse();
    assertThat(p.requests().idleNanos()).isEqualTo(5_000_000_000L);
    RouterSettings settings = p.router().settings();
    assertThat(settings.ewmaTauMillis()).isEqualTo(PoolRuntimeFactory.EWMA_TAU_MILLIS);
    assertThat(settings.defaultLatencyMillis()).isEqualTo(100);
    assertThat(settings.failurePenaltyMillis())
        .isEqualTo(100.0 * PoolRuntimeFactory.FAILURE_PENALTY_FACTOR);
    assertThat(settings.panicThresholdPercent()).isZero();
    assertThat(eventsAskedFor).containsExactly("a/p");
  }

  @Test
  void theSnapshotsBaselineSetsTheRoutersLatencies() {
    AdaptiveRouting adaptive = new AdaptiveRouting();
    adaptive.baselineLatencyMillis = 20;
    PoolRuntime p = factory.build(snapshot(1, 1).adaptive(adaptive).build(), List.of(), null);
    assertThat(p.router().settings().defaultLatencyMillis()).isEqualTo(20);
    assertThat(p.router().settings().failurePenaltyMillis()).isEqualTo(200);

    adaptive.baselineLatencyMillis = null;
    assertThat(PoolRuntimeFactory.baselineLatencyMillis(snapshot(1).adaptive(adaptive).build()))
        .isEqualTo(100);
  }

  @Test
  void onlyHttpsAndWssPoolsSpeakTlsToTheirMembers() {
    for (String protocol : List.of("https", "kubernetes.io/wss")) {
      PoolSnapshot s = snapshot(1, 1).appProtocol(protocol).build();
      assertThat(factory.build(s, List.of(), null).tlsMembers()).as(protocol).isTrue();
    }
    for (String protocol : List.of("http", "kubernetes.io/ws", "kubernetes.io/h2c")) {
      PoolSnapshot s = snapshot(1, 1).appProtocol(protocol).build();
      assertThat(factory.build(s, List.of(), null).tlsMembers()).as(protocol).isFalse();
    }
  }

  @Test
  void aNewVersionCarriesOverTheMembersItShares() {
    PoolRuntime v1 = factory.build(snapshot(1, 1, 2).build(), List.of(), null);
    PoolRuntime v2 = factory.build(snapshot(2, 2, 3).build(), List.of(), v1);

    assertThat(v2.router().endpoints().get(0)).isSameAs(v1.router().endpoints().get(1));
    assertThat(v2.router().endpoints().get(1)).isNotIn(v1.router().endpoints());
    assertThat(v2.requests().latencies()).isSameAs(v1.requests().latencies());
  }
}
