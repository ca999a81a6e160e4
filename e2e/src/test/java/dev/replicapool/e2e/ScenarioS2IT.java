package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.Registration;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.testing.ReplicaProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * S2 of docs/SCENARIOS.md through the real stack: replicas register with 900 ms Leases renewed
 * every 300 ms and report their health with each renewal; six requests per phase through the data
 * plane.
 */
class ScenarioS2IT {
  static SystemHarness h;
  static final StringBuilder table =
      new StringBuilder(
          String.format("%-40s %6s %11s %9s%n", "phase", "ok", "registered", "routable"));

  @BeforeAll
  static void start() {
    h = new SystemHarness("s2");
  }

  @AfterAll
  static void stop() {
    System.out.println("S2 through the real stack\n" + table);
    h.close();
  }

  ReplicaProcess replica(String name, String host) {
    return h.closeLater(
        ReplicaProcess.startRegistered(
            name, host, h.namespace + "/registry", h.apiServer.kubeConfigFile(), 900, 300));
  }

  /** Six requests in turn, then the status counts, as one row of the table. */
  int[] phase(String name) {
    int ok = 0;
    for (int i = 0; i < 6; i++) {
      if (h.get("registry.local", "/track/" + i).status() == 200) {
        ok++;
      }
    }
    ReplicaPool p = h.pool("registry").get();
    int[] row = {ok, p.getStatus().registered, p.getStatus().routable};
    table.append(String.format("%-40s %4d/6 %11d %9d%n", name, row[0], row[1], row[2]));
    return row;
  }

  void awaitCounts(int registered, int routable) {
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(25))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("registry").get();
              assertThat(p.getStatus().registered).isEqualTo(registered);
              assertThat(p.getStatus().routable).isEqualTo(routable);
              assertThat(SystemHarness.condition(p, "DataPlaneSynced")).isEqualTo("True");
            });
  }

  @Test
  void fivePhasesThroughTheDataPlane() throws Exception {
    // No pool yet: the data plane is ready once the operator said it sent everything it has.
    await().atMost(Duration.ofSeconds(10)).until(() -> h.dataPlaneStatus().getBoolean("ready"));
    assertThat(h.dataPlaneStatus().getJsonArray("pools")).isEmpty();

    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName("registry");
    pool.getMetadata().setNamespace(h.namespace);
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.registration = new Registration();
    spec.route = new Route();
    spec.route.hosts = List.of("registry.local");
    // As with S2's reference registry: the registry alone decides, no active probes.
    spec.healthCheck.enabled = false;
    pool.setSpec(spec);
    h.client.resource(pool).create();

    List<ReplicaProcess> replicas = new ArrayList<>();
    replicas.add(replica("r1", "127.0.0.21"));
    replicas.add(replica("r2", "127.0.0.22"));
    replicas.add(replica("r3", "127.0.0.23"));
    awaitCounts(3, 3);
    assertThat(phase("all alive")).containsExactly(6, 3, 3);

    replicas.get(0).kill();
    int[] atOnce = phase("one killed, at once");
    assertThat(atOnce[0]).as("requests succeed inside the discovery window").isEqualTo(6);
    assertThat(atOnce[1]).as("the lease has not expired yet").isEqualTo(3);

    awaitCounts(2, 2);
    assertThat(phase("lease expired")).containsExactly(6, 2, 2);

    HttpResponse<String> flip =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://" + replicas.get(1).address() + "/admin/unhealthy"))
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(flip.statusCode()).isEqualTo(200);
    awaitCounts(2, 1);
    assertThat(phase("one reports unhealthy, keeps renewing")).containsExactly(6, 2, 1);

    replicas.add(replica("r4", "127.0.0.24"));
    awaitCounts(3, 2);
    assertThat(phase("new replica started")).containsExactly(6, 3, 2);
  }
}
