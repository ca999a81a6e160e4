package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.api.v1alpha1.StaticEndpoint;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A pool applied together with its replicas, as {@code kubectl apply} of both does: the first
 * probes find nothing listening. Members that never answered are Pending, not failed: once they
 * answer they are Healthy at full weight at once, without the 30 s recovery hold, and S1's 300
 * sequential requests split exactly.
 */
class ScenarioStartTogetherIT {
  static SystemHarness h;

  @BeforeAll
  static void start() {
    h = new SystemHarness("start-together");
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void membersStartingWithThePoolSplitExactlyRightAfterReady() {
    List<String> names = List.of("k1", "k2", "k3");
    List<Integer> ports = new ArrayList<>();
    names.forEach(n -> ports.add(ReplicaProcess.freePort("127.0.0.1")));

    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName("together");
    pool.getMetadata().setNamespace(h.namespace);
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.endpoints = new ArrayList<>();
    ports.forEach(p -> spec.endpoints.add(new StaticEndpoint("127.0.0.1", p)));
    spec.route = new Route();
    spec.route.hosts = List.of("together.local");
    spec.healthCheck.intervalMillis = 200;
    spec.healthCheck.timeoutMillis = 100;
    spec.healthCheck.unhealthyThreshold = 1;
    // Three JVMs starting at once on a shared machine may take longer than 10 intervals.
    spec.healthCheck.startupGraceMillis = 60_000;
    // The default 30 s hold stays: a member wrongly taken for one that recovers would sit in it.
    pool.setSpec(spec);
    h.client.resource(pool).create();

    // The pool first, then the replicas, all starting at once.
    List<CompletableFuture<ReplicaProcess>> starting = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      int port = ports.get(i);
      starting.add(
          CompletableFuture.supplyAsync(
              () -> h.closeLater(ReplicaProcess.start(name, "127.0.0.1", port))));
    }
    starting.forEach(CompletableFuture::join);

    // Well within the 30 s hold: Healthy at full weight, on the operator and the data plane.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("together").get();
              assertThat(p.getStatus()).as("status written").isNotNull();
              assertThat(p.getStatus().routable).isEqualTo(3);
              assertThat(p.getStatus().endpoints)
                  .allSatisfy(
                      e -> {
                        assertThat(e.state).isEqualTo(MemberState.Healthy);
                        assertThat(e.weight).isEqualTo(1.0);
                      });
              assertThat(SystemHarness.condition(p, "Ready")).isEqualTo("True");
              assertThat(SystemHarness.condition(p, "DataPlaneSynced")).isEqualTo("True");
              assertThat(ScenarioS1IT.fullWeightOnDataPlane(h.dataPlaneStatus(), "together"))
                  .isEqualTo(3);
            });
    TreeMap<String, Integer> split = h.sequential("together.local", 300);
    System.out.println("started together, right after Ready: " + split);
    assertThat(split).isEqualTo(new TreeMap<>(Map.of("k1", 100, "k2", 100, "k3", 100)));

    // Nobody failed: no Warning about members, one Normal Event per member turning Healthy.
    List<Event> events = h.client.v1().events().inNamespace(h.namespace).list().getItems();
    assertThat(events)
        .filteredOn(e -> "together".equals(e.getInvolvedObject().getName()))
        .filteredOn(e -> "Warning".equals(e.getType()))
        .extracting(Event::getReason)
        .doesNotContain("MemberUnhealthy", "MemberDegraded");
    assertThat(events)
        .filteredOn(e -> "together".equals(e.getInvolvedObject().getName()))
        .filteredOn(e -> "MemberHealthy".equals(e.getReason()))
        .extracting(Event::getMessage)
        .hasSize(3)
        .allSatisfy(m -> assertThat(m).contains("Pending -> Healthy: answered"));
  }
}
