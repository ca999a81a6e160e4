package dev.replicapool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.api.v1alpha1.MemberSource;
import dev.replicapool.api.v1alpha1.Registration;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
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
 * S2: members that register themselves with Leases of 900 ms renewed every 300 ms, through the five
 * phases of S2 in docs/SCENARIOS.md. Registered counts live leases, routable those that also report
 * healthy.
 */
class LeaseRegistrationIT {
  static OperatorHarness h;

  @BeforeAll
  static void start() {
    h = new OperatorHarness("lease");
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  ReplicaProcess replica(String name, String host) {
    return h.closeLater(
        ReplicaProcess.startRegistered(
            name, host, h.namespace + "/registry", h.apiServer.kubeConfigFile(), 900, 300));
  }

  void awaitCounts(int registered, int routable) {
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("registry").get();
              assertThat(p.getStatus()).isNotNull();
              assertThat(p.getStatus().registered).as("registered").isEqualTo(registered);
              assertThat(p.getStatus().routable).as("routable").isEqualTo(routable);
            });
  }

  @Test
  void fivePhasesOfTheSeed() throws Exception {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName("registry");
    pool.getMetadata().setNamespace(h.namespace);
    pool.setSpec(new ReplicaPoolSpec());
    pool.getSpec().registration = new Registration();
    // As with S2's reference registry, only the registry decides: no active probes, the renewal
    // carries health.
    pool.getSpec().healthCheck.enabled = false;
    h.client.resource(pool).create();

    List<ReplicaProcess> replicas = new ArrayList<>();
    replicas.add(replica("r1", "127.0.0.2"));
    replicas.add(replica("r2", "127.0.0.3"));
    replicas.add(replica("r3", "127.0.0.4"));

    // Phase 1: all alive.
    awaitCounts(3, 3);
    assertThat(h.pool("registry").get().getStatus().endpoints)
        .allSatisfy(
            e -> {
              assertThat(e.source).isEqualTo(MemberSource.Lease);
              assertThat(e.leaseExpiresAt).isNotNull();
            });

    // Phase 2-3: one killed; it cannot deregister, only expiry removes it.
    replicas.get(0).kill();
    long killedAt = System.nanoTime();
    awaitCounts(2, 2);
    long removedAfterMillis = (System.nanoTime() - killedAt) / 1_000_000;
    assertThat(removedAfterMillis).as("lease expiry removes the member").isLessThan(900 + 1_500);
    assertThat(h.client.leases().inNamespace(h.namespace).list().getItems())
        .as("an expired lease stays until garbage collection; only its member goes")
        .hasSize(3);

    // Phase 4: one reports itself unhealthy and keeps renewing.
    HttpClient http = HttpClient.newHttpClient();
    ReplicaProcess sick = replicas.get(1);
    HttpResponse<String> flip =
        http.send(
            HttpRequest.newBuilder(URI.create("http://" + sick.address() + "/admin/unhealthy"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(flip.statusCode()).isEqualTo(200);
    awaitCounts(2, 1);
    String leaseName = LeaseConventions.leaseName("registry", "r2");
    // The flag travels with the next renewal (within 300 ms); the probe may have seen it first.
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(
                        h.client
                            .leases()
                            .inNamespace(h.namespace)
                            .withName(leaseName)
                            .get()
                            .getMetadata()
                            .getAnnotations())
                    .containsEntry(LeaseConventions.HEALTHY_ANNOTATION, "false"));
    awaitCounts(2, 1);

    // Phase 5: a new replica starts; no configuration file is touched.
    replicas.add(replica("r4", "127.0.0.5"));
    awaitCounts(3, 2);
  }
}
