package dev.replicapool.operator.it;

import static dev.replicapool.operator.it.OperatorHarness.condition;
import static dev.replicapool.operator.it.OperatorHarness.conditionMessage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.Capacity;
import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.ReplicaPools;
import dev.replicapool.testing.ReplicaProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Static members probed by the operator, with S1's capacity inputs: the status part of S1 in
 * docs/SCENARIOS.md.
 */
class StaticPoolIT {
  static OperatorHarness h;
  static final List<ReplicaProcess> replicas = new ArrayList<>();

  @BeforeAll
  static void start() {
    h = new OperatorHarness("static");
    h.connectAcceptingDataPlane();
    for (String name : List.of("k1", "k2", "k3", "k4")) {
      replicas.add(
          h.closeLater(
              ReplicaProcess.start(name, "127.0.0.1", ReplicaProcess.freePort("127.0.0.1"))));
    }
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static ReplicaPool pool(String name, List<ReplicaProcess> members) {
    ReplicaPool pool =
        h.staticPool(name, members.stream().map(r -> r.host() + ":" + r.port()).toList());
    ReplicaPoolSpec spec = pool.getSpec();
    spec.capacity = new Capacity();
    spec.capacity.peakRequestsPerSecond = 513.89;
    spec.capacity.perReplicaRequestsPerSecond = 400.0;
    spec.capacity.targetUtilization = 0.5;
    return pool;
  }

  @Test
  void killedReplicaIsUnhealthyWithinIntervalPlusTimeoutAndCapacityShowsTheSeedFigures() {
    List<ReplicaProcess> three = replicas.subList(0, 3);
    h.client.resource(pool("tracking", three)).create();

    h.awaitPool(
        "tracking",
        Duration.ofSeconds(30),
        p -> {
          assertThat(condition(p, "Ready")).isEqualTo("True");
          assertThat(p.getStatus().registered).isEqualTo(3);
          assertThat(p.getStatus().routable).isEqualTo(3);
        });
    // kubectl wait, as a user would script it.
    Kubectl.Result wait =
        h.kubectl.run(
            "wait", "--for=condition=Ready", "--timeout=30s", "rp/tracking", "-n", h.namespace);
    assertThat(wait.exitCode()).as(wait.output()).isZero();

    ReplicaPool ready = h.pool("tracking").get();
    assertThat(ready.getStatus().observedGeneration).isEqualTo(ready.getMetadata().getGeneration());
    var cap = ready.getStatus().capacity;
    assertThat(cap.minReplicas).isEqualTo(3);
    assertThat(cap.perReplicaRequestsPerSecond).isEqualTo(171.30);
    assertThat(cap.utilization).isEqualTo(0.428);
    assertThat(cap.perReplicaRequestsPerSecondAfterOneFailure).isEqualTo(256.94);
    assertThat(cap.utilizationAfterOneFailure).isEqualTo(0.642);
    assertThat(cap.healthCheckRequestsPerSecond).isEqualTo(15.0);
    assertThat(condition(ready, "CapacityAtRisk")).isEqualTo("True");
    assertThat(conditionMessage(ready, "CapacityAtRisk")).contains("0.642").contains("0.5");

    // Kill k2: probe every 200 ms with a 100 ms timeout, one failure is enough.
    ReplicaProcess k2 = three.get(1);
    k2.kill();
    long killedAt = System.nanoTime();
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("tracking").get();
              assertThat(p.getStatus().routable).isEqualTo(2);
              EndpointStatus row =
                  p.getStatus().endpoints.stream()
                      .filter(e -> e.address.equals(k2.address()))
                      .findFirst()
                      .orElseThrow();
              assertThat(row.state).isEqualTo(MemberState.Unhealthy);
              assertThat(row.weight).isZero();
            });
    long detectedMillis = (System.nanoTime() - killedAt) / 1_000_000;
    // interval + timeout + margin for the status write and this poll.
    assertThat(detectedMillis).isLessThan(200 + 100 + 700);
    ReplicaPool after = h.pool("tracking").get();
    assertThat(condition(after, "Degraded")).isEqualTo("True");
    assertThat(conditionMessage(after, "Degraded")).contains(k2.address());
    assertThat(after.getStatus().registered).isEqualTo(3);
  }

  @Test
  void fourRoutableMembersAreNotAtRisk() {
    h.client
        .resource(pool("four", List.of(replicas.get(0), replicas.get(2), replicas.get(3))))
        .create();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(h.pool("four").get().getStatus().routable).isEqualTo(3));
    assertThat(condition(h.pool("four").get(), "CapacityAtRisk")).isEqualTo("True");

    ReplicaProcess k5 =
        h.closeLater(ReplicaProcess.start("k5", "127.0.0.1", ReplicaProcess.freePort("127.0.0.1")));
    ReplicaPools.editSpec(
        h.pool("four"),
        p -> {
          p.getSpec().endpoints.add(new StaticEndpoint(k5.host(), k5.port()));
          return p;
        });
    h.awaitPool(
        "four",
        Duration.ofSeconds(30),
        p -> {
          assertThat(p.getStatus().routable).isEqualTo(4);
          assertThat(condition(p, "CapacityAtRisk")).isEqualTo("False");
          assertThat(p.getStatus().capacity.utilizationAfterOneFailure).isEqualTo(0.428);
          assertThat(p.getStatus().observedGeneration).isEqualTo(p.getMetadata().getGeneration());
        });
  }

  @Test
  void unchangedPoolIsNotRewritten() {
    h.client.resource(pool("quiet", List.of(replicas.get(3)))).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              var p = h.pool("quiet").get();
              return p.getStatus() != null && Integer.valueOf(1).equals(p.getStatus().routable);
            });
    // Let it settle, then count writes: a status loop would write many times per second.
    String first = h.pool("quiet").get().getMetadata().getResourceVersion();
    List<String> versions = new ArrayList<>();
    await()
        .pollDelay(Duration.ofMillis(250))
        .pollInterval(Duration.ofMillis(250))
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              versions.add(h.pool("quiet").get().getMetadata().getResourceVersion());
              return versions.size() >= 16;
            });
    long distinct = versions.stream().filter(v -> !v.equals(first)).distinct().count();
    assertThat(distinct)
        .as("status writes in 4 s of a pool that did not change")
        .isLessThanOrEqualTo(2);
  }
}
