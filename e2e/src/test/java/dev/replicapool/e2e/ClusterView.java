package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.testing.Kubectl;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What {@link ClusterE2e} reads from the cluster and waits for: Deployments, member Pods as the
 * kubelet reports them, the sample pool's status, the operator's leader Lease.
 */
final class ClusterView {
  static final String SYSTEM = RenderedManifests.NAMESPACE;
  static final String SHOP = "shop";
  static final Duration ROLLOUT = Duration.ofMinutes(5);

  private final KubernetesClient client;
  private final Kubectl kubectl;

  ClusterView(KubernetesClient client, Kubectl kubectl) {
    this.client = client;
    this.kubectl = kubectl;
  }

  /**
   * The pool routes exactly the Running, Ready member Pods, each at the IP the kubelet reported.
   */
  void awaitPoolRoutes(int members) {
    await()
        .atMost(ROLLOUT)
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () -> {
              ReplicaPool p = pool();
              assertThat(condition(p, "Ready")).as("Ready of %s", status(p)).isEqualTo("True");
              assertThat(p.getStatus().routable).as("routable of %s", status(p)).isEqualTo(members);
              List<Pod> ready = readyMembers();
              assertThat(ready).as("Ready member Pods").hasSize(members);
              Set<String> kubeletSays =
                  ready.stream()
                      .map(pod -> pod.getMetadata().getName() + "@" + pod.getStatus().getPodIP())
                      .collect(Collectors.toSet());
              Set<String> poolRoutes =
                  p.getStatus().endpoints.stream()
                      .filter(e -> e.state == MemberState.Healthy)
                      .map(e -> e.name + "@" + e.address.substring(0, e.address.lastIndexOf(':')))
                      .collect(Collectors.toSet());
              assertThat(poolRoutes)
                  .as("healthy members of the pool vs Ready Pods at the IPs the kubelet reported")
                  .isEqualTo(kubeletSays);
            });
  }

  List<Pod> readyMembers() {
    return client.pods().inNamespace(SHOP).withLabel("app", "tracking").list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(
            p ->
                p.getStatus().getConditions().stream()
                    .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())))
        .toList();
  }

  List<String> memberNames() {
    return podNames(SHOP, "app", "tracking");
  }

  List<String> podNames(String namespace, String label, String value) {
    return client.pods().inNamespace(namespace).withLabel(label, value).list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .map(p -> p.getMetadata().getName())
        .sorted()
        .collect(Collectors.toList());
  }

  /** The operator Pod holding the leader Lease. */
  String leaderPod() {
    var lease = client.leases().inNamespace(SYSTEM).withName("replicapool-operator-leader").get();
    assertThat(lease).as("the leader Lease").isNotNull();
    String holder = lease.getSpec().getHolderIdentity();
    assertThat(holder).as("the Lease's holder").isNotBlank();
    return podNames(SYSTEM, "app.kubernetes.io/name", "replicapool-operator").stream()
        .filter(holder::contains)
        .findFirst()
        .orElse(holder);
  }

  ReplicaPool pool() {
    return client.resources(ReplicaPool.class).inNamespace(SHOP).withName("tracking").get();
  }

  Deployment deployment(String namespace, String name) {
    return client.apps().deployments().inNamespace(namespace).withName(name).get();
  }

  void awaitReadyReplicas(String namespace, String name, int ready) {
    await()
        .atMost(ROLLOUT)
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              Deployment d = deployment(namespace, name);
              assertThat(d).as("%s/%s", namespace, name).isNotNull();
              Integer readyNow = d.getStatus() == null ? null : d.getStatus().getReadyReplicas();
              assertThat(readyNow)
                  .as("ready replicas of %s/%s; pods: %s", namespace, name, pods(namespace))
                  .isEqualTo(ready);
            });
  }

  String pods(String namespace) {
    return kubectl.run("get", "pods", "-n", namespace, "-o", "wide").output();
  }

  static String condition(ReplicaPool p, String type) {
    if (p == null || p.getStatus() == null) {
      return null;
    }
    return p.getStatus().conditions.stream()
        .filter(c -> type.equals(c.getType()))
        .map(Condition::getStatus)
        .findFirst()
        .orElse(null);
  }

  static String status(ReplicaPool p) {
    return p == null || p.getStatus() == null ? "(no status)" : p.getStatus().conditions.toString();
  }
}
