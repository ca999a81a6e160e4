package dev.replicapool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.Registration;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.testing.ReplicaProcess;
import io.micrometer.core.instrument.Counter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue #28's finding, against the real API server: a member answering half of its probes with 500
 * (the sample replica's /admin/errors?rate=0.5), probed every 200 ms with thresholds of 1 and a 1 s
 * recovery hold, changes state at most 8 times a minute (FlapLimit), where it went Unhealthy and
 * Degraded 5 times in 11 s before.
 */
class FlappingMemberIT {
  static OperatorHarness h;

  @BeforeAll
  static void start() {
    h = new OperatorHarness("flap");
    h.connectAcceptingDataPlane();
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void aMemberFailingHalfItsProbesChangesStateABoundedNumberOfTimesPerMinute() throws Exception {
    ReplicaProcess r =
        h.closeLater(
            ReplicaProcess.start("flappy", "127.0.0.1", ReplicaProcess.freePort("127.0.0.1")));
    ReplicaPool pool = h.staticPool("flappy", List.of(r.host() + ":" + r.port()));
    pool.getSpec().healthCheck.healthyThreshold = 1;
    pool.getSpec().routing.adaptive.recoverAfterMillis = 1_000;
    h.client.resource(pool).create();
    h.awaitPool(
        "flappy",
        Duration.ofSeconds(20),
        p -> {
          assertThat(p.getStatus()).isNotNull();
          assertThat(p.getStatus().endpoints).hasSize(1);
          assertThat(p.getStatus().endpoints.get(0).state).isEqualTo(MemberState.Healthy);
        });
    double before = transitions();

    HttpResponse<String> flip =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://" + r.address() + "/admin/errors?rate=0.5"))
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(flip.statusCode()).isEqualTo(200);

    // 55 s of coin tosses (about 270 probes), counting every state change the operator made.
    List<Double> samples = new ArrayList<>();
    await()
        .pollDelay(Duration.ofSeconds(55))
        .atMost(Duration.ofSeconds(70))
        .until(() -> samples.add(transitions() - before));
    double changes = samples.get(samples.size() - 1);
    System.out.printf("flappy: %.0f state changes in a minute at 50 %% errors%n", changes);
    assertThat(changes).as("it flapped at all").isGreaterThanOrEqualTo(1);
    assertThat(changes).as("at most 2 x 3 + 2 changes a minute").isLessThanOrEqualTo(8);
  }

  /**
   * A Lease member whose own health flag flips every second, with a 500 ms hold: the probes'
   * doubling does not apply to self-reports, so only the bound keeps it from changing state about 3
   * times every 2 s.
   */
  @Test
  void aLeaseMemberWhoseHealthFlagFlipsChangesStateABoundedNumberOfTimesPerMinute()
      throws Exception {
    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName("flipping");
    pool.getMetadata().setNamespace(h.namespace);
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.registration = new Registration();
    spec.healthCheck.enabled = false; // the renewals carry health, as in S2
    spec.routing.adaptive.recoverAfterMillis = 500;
    spec.route = new Route();
    spec.route.hosts = List.of("flipping.local");
    pool.setSpec(spec);
    h.client.resource(pool).create();
    ReplicaProcess r =
        h.closeLater(
            ReplicaProcess.startRegistered(
                "flipper",
                "127.0.0.6",
                h.namespace + "/flipping",
                h.apiServer.kubeConfigFile(),
                900,
                300));
    h.awaitPool(
        "flipping",
        Duration.ofSeconds(20),
        p -> {
          assertThat(p.getStatus()).isNotNull();
          assertThat(p.getStatus().routable).isEqualTo(1);
        });
    double before = transitions("flipping");

    ScheduledExecutorService flipper = Executors.newSingleThreadScheduledExecutor();
    AtomicBoolean sick = new AtomicBoolean();
    flipper.scheduleAtFixedRate(
        () -> admin(r, sick.getAndSet(!sick.get()) ? "/admin/healthy" : "/admin/unhealthy"),
        0,
        1,
        TimeUnit.SECONDS);
    List<Double> samples = new ArrayList<>();
    try {
      await()
          .pollDelay(Duration.ofSeconds(55))
          .atMost(Duration.ofSeconds(70))
          .until(() -> samples.add(transitions("flipping") - before));
    } finally {
      flipper.shutdownNow();
    }
    double changes = samples.get(samples.size() - 1);
    System.out.printf("flipping: %.0f state changes in 55 s, flag flipped every 1 s%n", changes);
    assertThat(changes).as("it flapped").isGreaterThanOrEqualTo(3);
    assertThat(changes).as("at most 2 x 3 + 2 changes a minute").isLessThanOrEqualTo(8);
  }

  private static void admin(ReplicaProcess r, String path) {
    try {
      HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://" + r.address() + path))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.discarding());
    } catch (Exception e) {
      // the next flip tries again
    }
  }

  private static double transitions() {
    return transitions("flappy");
  }

  /** The operator's count of this pool's state changes since it started. */
  private static double transitions(String name) {
    return h
        .operator
        .metrics()
        .registry()
        .find("replicapool.member.transitions")
        .tag("pool", h.namespace + "/" + name)
        .counters()
        .stream()
        .mapToDouble(Counter::count)
        .sum();
  }
}
