package dev.replicapool.operator.it;

import static dev.replicapool.operator.it.OperatorHarness.condition;
import static dev.replicapool.operator.it.OperatorHarness.conditionMessage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.MemberSource;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.testing.ReplicaPools;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
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
 * Pods as members. No kubelet runs, so the test writes each Pod's status (podIP, Ready) itself; the
 * Pods' IPs are loopback addresses where real replica processes listen on the pool's port.
 */
class PodSelectorIT {
  static OperatorHarness h;
  static int port;

  @BeforeAll
  static void start() {
    h = new OperatorHarness("pods");
    h.connectAcceptingDataPlane();
    port = ReplicaProcess.freePort("127.0.0.12");
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  Pod pod(String name, String ip, boolean ready) {
    return pod(name, "tracking", ip, ready);
  }

  Pod pod(String name, String app, String ip, boolean ready) {
    Pod created =
        h.client
            .pods()
            .inNamespace(h.namespace)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .addToLabels("app", app)
                    // Keeps a deleted Pod terminating, as a kubelet would during its grace period.
                    .addToFinalizers("replicapool.dev/test-hold")
                    .endMetadata()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("app")
                    .withImage("tracking:1")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    return setStatus(created, ip, ready);
  }

  Pod setStatus(Pod pod, String ip, boolean ready) {
    pod.setStatus(
        new io.fabric8.kubernetes.api.model.PodStatusBuilder()
            .withPhase("Running")
            .withPodIP(ip)
            .withConditions(
                new PodConditionBuilder()
                    .withType("Ready")
                    .withStatus(ready ? "True" : "False")
                    .build())
            .build());
    return h.client.pods().inNamespace(h.namespace).resource(pod).updateStatus();
  }

  @Test
  void readyPodsAreMembersTerminatingOnesDrainUnreadyOnesAreNot() throws Exception {
    ReplicaProcess a = h.closeLater(ReplicaProcess.start("pod-a", "127.0.0.12", port));
    ReplicaProcess b = h.closeLater(ReplicaProcess.start("pod-b", "127.0.0.13", port));
    ReplicaProcess c = h.closeLater(ReplicaProcess.start("pod-c", "127.0.0.14", port));

    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName("by-selector");
    pool.getMetadata().setNamespace(h.namespace);
    pool.setSpec(new ReplicaPoolSpec());
    pool.getSpec().selector =
        new LabelSelectorBuilder().addToMatchLabels("app", "tracking").build();
    pool.getSpec().port = port;
    pool.getSpec().route = new Route();
    pool.getSpec().route.hosts = List.of("by-selector.local");
    pool.getSpec().healthCheck.intervalMillis = 200;
    pool.getSpec().healthCheck.timeoutMillis = 100;
    h.client.resource(pool).create();

    // Nothing selected yet: not Ready, and the message says why.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("by-selector").get();
              assertThat(condition(p, "Ready")).isEqualTo("False");
              assertThat(conditionMessage(p, "Ready")).contains("app=tracking matches no Pods");
            });

    Pod podA = pod("a", a.host(), true);
    pod("b", b.host(), true);
    pod("c", c.host(), false);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("by-selector").get();
              assertThat(p.getStatus().registered).isEqualTo(2);
              assertThat(p.getStatus().routable).isEqualTo(2);
              assertThat(p.getStatus().endpoints)
                  .extracting(e -> e.name)
                  .containsExactlyInAnyOrder("a", "b");
              assertThat(p.getStatus().endpoints)
                  .allSatisfy(e -> assertThat(e.source).isEqualTo(MemberSource.Pod));
            });

    // c becomes Ready: it joins.
    setStatus(h.client.pods().inNamespace(h.namespace).withName("c").get(), c.host(), true);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> assertThat(h.pool("by-selector").get().getStatus().routable).isEqualTo(3));

    // a is deleted: it drains (counted, weight 0) until it is gone.
    h.client.pods().inNamespace(h.namespace).resource(podA).delete();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("by-selector").get();
              assertThat(p.getStatus().registered).isEqualTo(3);
              assertThat(p.getStatus().routable).isEqualTo(2);
              EndpointStatus row =
                  p.getStatus().endpoints.stream()
                      .filter(e -> "a".equals(e.name))
                      .findFirst()
                      .orElseThrow();
              assertThat(row.state).isEqualTo(MemberState.Draining);
              assertThat(row.weight).isZero();
            });
    ReplicaPools.editLatest(
        h.client.pods().inNamespace(h.namespace).withName("a"),
        p -> {
          p.getMetadata().setFinalizers(List.of());
          return p;
        });
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("by-selector").get();
              assertThat(p.getStatus().registered).isEqualTo(2);
              assertThat(p.getStatus().endpoints).extracting(e -> e.name).doesNotContain("a");
            });

    // Events tell the story; the admin port serves Prometheus metrics.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(h.client.v1().events().inNamespace(h.namespace).list().getItems())
                    .extracting(e -> e.getReason())
                    .contains("SelectorMatchesNothing", "MemberRemoved"));
    HttpResponse<String> metrics =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + h.operator.adminPort() + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(metrics.body())
        .contains(
            "replicapool_probes_total{cause=\"none\",pool=\""
                + h.namespace
                + "/by-selector\",result=\"success\"}")
        .contains(
            "replicapool_members{pool=\"" + h.namespace + "/by-selector\",state=\"Healthy\"} 2.0")
        .contains("replicapool_reconcile_seconds");
  }

  @Test
  void aSelectorNowMatchingOnlyNewPodsKeepsTheOldOnesServingUntilANewOneIsRoutable()
      throws Exception {
    ReplicaProcess old = h.closeLater(ReplicaProcess.start("pod-old", "127.0.0.21", port));
    pod("old", "swap-v1", old.host(), true);
    // The new Pod is Ready, but nothing answers at its address yet.
    pod("new", "swap-v2", "127.0.0.22", true);

    ReplicaPool pool = new ReplicaPool();
    pool.getMetadata().setName("swap");
    pool.getMetadata().setNamespace(h.namespace);
    pool.setSpec(new ReplicaPoolSpec());
    pool.getSpec().selector = new LabelSelectorBuilder().addToMatchLabels("app", "swap-v1").build();
    pool.getSpec().port = port;
    pool.getSpec().route = new Route();
    pool.getSpec().route.hosts = List.of("swap.local");
    pool.getSpec().healthCheck.intervalMillis = 200;
    pool.getSpec().healthCheck.timeoutMillis = 100;
    pool.getSpec().healthCheck.startupGraceMillis = 60_000;
    h.client.resource(pool).create();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(h.pool("swap").get().getStatus())
                    .isNotNull()
                    .extracting(s -> s.routable)
                    .isEqualTo(1));

    ReplicaPools.editSpec(
        h.pool("swap"),
        p -> {
          p.getSpec().selector =
              new LabelSelectorBuilder().addToMatchLabels("app", "swap-v2").build();
          return p;
        });
    // The old Pod is still Ready: it serves, Draining, while the new one does not answer.
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("swap").get();
              EndpointStatus row =
                  p.getStatus().endpoints.stream()
                      .filter(e -> "old".equals(e.name))
                      .findFirst()
                      .orElseThrow();
              assertThat(row.state).isEqualTo(MemberState.Draining);
              assertThat(row.weight).isEqualTo(1.0);
              assertThat(row.message)
                  .isEqualTo(
                      "no longer selected; kept until 1 new member is routable (0 now), at most"
                          + " 60000ms");
              assertThat(condition(p, "Ready")).isEqualTo("True");
            });

    // The new Pod answers: the old one leaves.
    h.closeLater(ReplicaProcess.start("pod-new", "127.0.0.22", port));
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              ReplicaPool p = h.pool("swap").get();
              assertThat(p.getStatus().endpoints)
                  .extracting(e -> e.name, e -> e.state)
                  .containsExactly(tuple("new", MemberState.Healthy));
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(h.client.v1().events().inNamespace(h.namespace).list().getItems())
                    .extracting(e -> e.getMessage())
                    .anyMatch(m -> m.contains("no longer selected; kept until"))
                    .anyMatch(
                        m ->
                            m.contains(
                                "left the pool: no longer selected; 1 routable member takes over")));
  }
}
