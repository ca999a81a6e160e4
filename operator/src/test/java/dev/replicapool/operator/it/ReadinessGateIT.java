package dev.replicapool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.operator.readiness.RoutableGate;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The readiness gate replicapool.dev/routable on a real API server. No kubelet runs, so the test
 * writes the kubelet's part of each Pod's status (podIP, ContainersReady) itself and reads the
 * operator's part back.
 */
class ReadinessGateIT {
  static OperatorHarness h;
  static int port;

  @BeforeAll
  static void start() {
    h = new OperatorHarness("gate");
    port = ReplicaProcess.freePort("127.0.0.22");
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  Pod pod(String name, String ip, boolean gated) {
    PodBuilder b =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .addToLabels("app", "gated")
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("app")
            .withImage("gated:1")
            .endContainer()
            .endSpec();
    if (gated) {
      b.editSpec().addNewReadinessGate(RoutableGate.CONDITION_TYPE).endSpec();
    }
    h.client.pods().inNamespace(h.namespace).resource(b.build()).create();
    // What a kubelet reports: containers ready; Ready itself waits for the gate when declared. The
    // operator may patch the gate in between, so the write keeps its condition and is retried on a
    // conflict, as a kubelet's status manager does.
    for (int attempt = 1; ; attempt++) {
      Pod current = h.client.pods().inNamespace(h.namespace).withName(name).get();
      var conditions =
          new java.util.ArrayList<>(
              List.of(
                  new PodConditionBuilder().withType("ContainersReady").withStatus("True").build(),
                  new PodConditionBuilder()
                      .withType("Ready")
                      .withStatus(gated ? "False" : "True")
                      .build()));
      if (current.getStatus() != null && current.getStatus().getConditions() != null) {
        current.getStatus().getConditions().stream()
            .filter(c -> RoutableGate.CONDITION_TYPE.equals(c.getType()))
            .forEach(conditions::add);
      }
      current.setStatus(
          new PodStatusBuilder()
              .withPhase("Running")
              .withPodIP(ip)
              .withConditions(conditions)
              .build());
      try {
        return h.client.pods().inNamespace(h.namespace).resource(current).updateStatus();
      } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
        if (e.getCode() != 409 || attempt >= 5) {
          throw e;
        }
      }
    }
  }

  static String gate(String pod) {
    Pod p = h.client.pods().inNamespace(h.namespace).withName(pod).get();
    return RoutableGate.current(p);
  }

  static PodCondition condition(String pod, String type) {
    return h
        .client
        .pods()
        .inNamespace(h.namespace)
        .withName(pod)
        .get()
        .getStatus()
        .getConditions()
        .stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst()
        .orElse(null);
  }

  @Test
  void theOperatorSetsTheGateWhileThePoolRoutesToThePod() throws Exception {
    ReplicaProcess a = h.closeLater(ReplicaProcess.start("gated-a", "127.0.0.22", port));
    h.closeLater(ReplicaProcess.start("plain-b", "127.0.0.23", port));

    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName("gated");
    pool.getMetadata().setNamespace(h.namespace);
    pool.setSpec(new ReplicaPoolSpec());
    pool.getSpec().selector = new LabelSelectorBuilder().addToMatchLabels("app", "gated").build();
    pool.getSpec().port = port;
    pool.getSpec().healthCheck.intervalMillis = 200;
    pool.getSpec().healthCheck.timeoutMillis = 100;
    pool.getSpec().healthCheck.unhealthyThreshold = 1;
    pool.getSpec().healthCheck.startupGraceMillis = 60_000; // c stays Pending throughout
    h.client.resource(pool).create();

    pod("a", "127.0.0.22", true);
    pod("b", "127.0.0.23", false);
    // Pod c declares the gate but nothing listens on its address: it stays Pending.
    pod("c", "127.0.0.24", true);

    // a is a member though not Ready (its gate holds it back), and once routable its gate is True.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("gated").get();
              assertThat(p.getStatus()).isNotNull();
              assertThat(p.getStatus().routable).isEqualTo(2);
              assertThat(gate("a")).isEqualTo("True");
              assertThat(gate("c")).isEqualTo("False");
            });
    assertThat(gate("b")).as("a Pod without the gate is left alone").isNull();
    assertThat(condition("a", "ContainersReady").getStatus())
        .as("the kubelet's conditions stay")
        .isEqualTo("True");
    assertThat(condition("a", RoutableGate.CONDITION_TYPE).getReason()).isEqualTo("PoolRoutes");
    assertThat(
            h.pool("gated").get().getStatus().endpoints.stream()
                .filter(e -> "c".equals(e.name))
                .findFirst()
                .orElseThrow()
                .state)
        .isEqualTo(MemberState.Pending);

    // a fails its health check: the pool no longer routes to it, and its gate says so.
    HttpResponse<String> sick =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://" + a.address() + "/admin/unhealthy"))
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(sick.statusCode()).isEqualTo(200);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(gate("a")).isEqualTo("False"));
    assertThat(condition("a", RoutableGate.CONDITION_TYPE).getReason())
        .isEqualTo("PoolDoesNotRoute");
  }
}
