package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.testing.ReplicaPools;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.Event;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Three members whose health path fails while they still serve: without a panic threshold the pool
 * answers 503 to everything; with 50 % the data plane routes to all of them and no request fails.
 */
class ScenarioPanicIT {
  static SystemHarness h;
  static final List<ReplicaProcess> k = new ArrayList<>();
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    h = new SystemHarness("panic");
    k.addAll(h.replicas("k1", "k2", "k3"));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static ReplicaPool pool(String name, int panicThresholdPercent) {
    ReplicaPool pool = h.pool(name, k);
    pool.getSpec().routing.adaptive.recoverAfterMillis = 1_000;
    pool.getSpec().routing.panicThresholdPercent = panicThresholdPercent;
    return pool;
  }

  static void healthPath(String verb) throws Exception {
    for (ReplicaProcess r : k) {
      HttpResponse<String> answer =
          http.send(
              HttpRequest.newBuilder(URI.create("http://" + r.address() + "/admin/" + verb))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).isEqualTo(200);
    }
  }

  static String panicGauge(String pool) throws Exception {
    String metrics =
        http.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + h.dataPlane.adminPort() + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    return metrics
        .lines()
        .filter(l -> l.startsWith("replicapool_panic{") && l.contains(h.namespace + "/" + pool))
        .findFirst()
        .orElse("");
  }

  @Test
  void membersFailingOnlyTheirHealthPathStillServeInPanic() throws Exception {
    h.client.resource(pool("strict", 0)).create();
    h.client.resource(pool("failopen", 50)).create();
    for (String name : List.of("strict", "failopen")) {
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                ReplicaPool p = h.pool(name).get();
                assertThat(p.getStatus()).as("status written").isNotNull();
                assertThat(p.getStatus().routable).isEqualTo(3);
                assertThat(SystemHarness.condition(p, "DataPlaneSynced")).isEqualTo("True");
                assertThat(ScenarioS1IT.routableOnDataPlane(h.dataPlaneStatus(), name))
                    .isEqualTo(3);
              });
    }
    assertThat(panicGauge("failopen")).endsWith(" 0.0");

    healthPath("unhealthy");
    for (String name : List.of("strict", "failopen")) {
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                ReplicaPool p = h.pool(name).get();
                assertThat(p.getStatus()).as("status written").isNotNull();
                assertThat(p.getStatus().routable).isZero();
                assertThat(p.getStatus().endpoints)
                    .allSatisfy(e -> assertThat(e.state).isEqualTo(MemberState.Unhealthy));
                assertThat(ScenarioS1IT.routableOnDataPlane(h.dataPlaneStatus(), name)).isZero();
              });
    }

    TreeMap<String, Integer> strict = h.sequential("strict.local", 90);
    TreeMap<String, Integer> failOpen = h.sequential("failopen.local", 90);
    System.out.println("health path failing, no panic threshold: " + strict);
    System.out.println("health path failing, panic at 50 %:      " + failOpen);
    assertThat(strict).isEqualTo(new TreeMap<>(Map.of("!503", 90)));
    assertThat(failOpen).isEqualTo(new TreeMap<>(Map.of("k1", 30, "k2", 30, "k3", 30)));

    ReplicaPool p = h.pool("failopen").get();
    assertThat(ReplicaPools.condition(p, "Degraded"))
        .hasValueSatisfying(
            c -> {
              assertThat(c.getStatus()).isEqualTo("True");
              assertThat(c.getReason()).isEqualTo("Panic");
              assertThat(c.getMessage())
                  .startsWith("0 of 3 members routable, below 50 %: routing to all");
            });
    assertThat(ReplicaPools.condition(h.pool("strict").get(), "Degraded"))
        .hasValueSatisfying(c -> assertThat(c.getReason()).isEqualTo("EndpointUnhealthy"));
    assertThat(panicGauge("failopen")).endsWith(" 1.0");
    assertThat(panicGauge("strict")).endsWith(" 0.0");

    healthPath("healthy");
    await()
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(
            () -> {
              assertThat(h.pool("failopen").get().getStatus().routable).isEqualTo(3);
              assertThat(poolEvents("failopen"))
                  .extracting(Event::getReason)
                  .contains("PanicRoutingEnded");
            });
    poolEvents("failopen").stream()
        .map(e -> e.getEventTime().getTime() + " " + e.getReason() + " " + e.getMessage())
        .sorted()
        .forEach(e -> System.out.println("failopen event " + e));
    assertThat(poolEvents("failopen"))
        .extracting(Event::getReason)
        .containsOnlyOnce("PanicRouting", "PanicRoutingEnded");
    assertThat(poolEvents("failopen"))
        .filteredOn(e -> "PanicRouting".equals(e.getReason()))
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getType()).isEqualTo("Warning");
              // Entered when the second member of three turned Unhealthy, or the third.
              assertThat(e.getMessage())
                  .matches("[01] of 3 members routable, below 50 %: routing to all; .*");
            });
    assertThat(poolEvents("strict")).extracting(Event::getReason).doesNotContain("PanicRouting");
    await().atMost(Duration.ofSeconds(5)).until(() -> panicGauge("failopen").endsWith(" 0.0"));
  }

  static List<Event> poolEvents(String pool) {
    return h.client.v1().events().inNamespace(h.namespace).list().getItems().stream()
        .filter(e -> pool.equals(e.getInvolvedObject().getName()))
        .toList();
  }
}
