package dev.replicapool.e2e;

import static dev.replicapool.e2e.RenderedManifests.NAMESPACE;
import static dev.replicapool.e2e.RenderedManifests.OPERATOR_SA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.operator.OperatorConfig;
import dev.replicapool.registrar.LeaseRegistrar;
import dev.replicapool.testing.ApiServerTestBase;
import dev.replicapool.testing.CloseLater;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The real operator ({@code OperatorMain}, in its own JVM) started with the args of the rendered
 * Deployment, running as the manifests' ServiceAccount: the API server impersonates it, so only the
 * rendered ClusterRole and Role authorize its calls. It watches every namespace and elects a leader
 * in replicapool-system, as in the cluster. If a rule it needs is missing, an informer or the
 * leader election fails here; {@link ManifestsIT} checks the rules one by one with can-i, this
 * proves they are enough.
 */
class OperatorUnderManifestRbacIT extends ApiServerTestBase {
  static RenderedManifests m;
  static OperatorProcess operator;
  static String namespace;
  static final CloseLater closeLater = new CloseLater();

  @BeforeAll
  static void startOperatorAsItsServiceAccount() {
    m = RenderedManifests.render(kubectl, client);
    m.applyNamespaceCrdAndRbac(kubectl);
    operator = OperatorProcess.start(m, apiServer, OPERATOR_SA, "operator-0");
    namespace = apiServer.createNamespace(client, "rbac-op");
  }

  @AfterAll
  static void stop() {
    closeLater.closeAll();
    if (operator != null) {
      operator.close();
    }
  }

  /** A client the API server treats as the given ServiceAccount. */
  static KubernetesClient impersonating(String user, String saNamespace) {
    Config config = Config.fromKubeconfig(apiServer.kubeConfigYaml());
    config.setImpersonateUsername(user);
    config.setImpersonateGroups(
        "system:serviceaccounts", "system:serviceaccounts:" + saNamespace, "system:authenticated");
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  @Test
  void becomesLeaderAndReady() {
    // Ready = the controller runs, every informer is healthy, and this replica leads.
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(() -> assertThat(readyz(operator.adminPort)).isEqualTo(200));
    Lease leader =
        client.leases().inNamespace(NAMESPACE).withName(OperatorConfig.LEADER_LEASE_NAME).get();
    assertThat(leader).as("the leader Lease in " + NAMESPACE).isNotNull();
    assertThat(leader.getSpec().getHolderIdentity()).isEqualTo("operator-0");
    // Renewals (a merge patch on the Lease) go through too.
    String renewed = leader.getSpec().getRenewTime().toString();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(
                        client
                            .leases()
                            .inNamespace(NAMESPACE)
                            .withName(OperatorConfig.LEADER_LEASE_NAME)
                            .get()
                            .getSpec()
                            .getRenewTime()
                            .toString())
                    .isNotEqualTo(renewed));
  }

  @Test
  void staticPoolGetsStatusAndAnEmptySelectorGetsAnEvent() {
    ReplicaProcess replica =
        closeLater(ReplicaProcess.start("s1", "127.0.0.31", ReplicaProcess.freePort("127.0.0.31")));
    apply(
        """
        apiVersion: replicapool.dev/v1alpha1
        kind: ReplicaPool
        metadata: {name: static, namespace: %s}
        spec:
          endpoints: [{host: %s, port: %d}]
          route: {hosts: [static.local]}
          healthCheck: {path: /healthz, intervalMillis: 200, timeoutMillis: 100}
        """
            .formatted(namespace, replica.host(), replica.port()));
    apply(
        """
        apiVersion: replicapool.dev/v1alpha1
        kind: ReplicaPool
        metadata: {name: nobody, namespace: %s}
        spec:
          selector: {matchLabels: {app: nobody}}
          port: 8080
        """
            .formatted(namespace));

    awaitRoutableWithNoDataPlane("static");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(client.v1().events().inNamespace(namespace).list().getItems())
                    .extracting(Event::getReason)
                    .contains("SelectorMatchesNothing"));
  }

  @Test
  void podsSelectedByAPoolAreWatched() {
    ReplicaProcess replica =
        closeLater(ReplicaProcess.start("p1", "127.0.0.32", ReplicaProcess.freePort("127.0.0.32")));
    Pod pod =
        client
            .pods()
            .inNamespace(namespace)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("tracking-0")
                    .addToLabels("app", "tracking")
                    .endMetadata()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("app")
                    .withImage("replicapool/sample-replica:0.1.0")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    // No kubelet runs: the test writes the status a kubelet would.
    pod.setStatus(
        new PodStatusBuilder()
            .withPhase("Running")
            .withPodIP(replica.host())
            .withConditions(new PodConditionBuilder().withType("Ready").withStatus("True").build())
            .build());
    client.pods().inNamespace(namespace).resource(pod).updateStatus();
    apply(
        """
        apiVersion: replicapool.dev/v1alpha1
        kind: ReplicaPool
        metadata: {name: pods, namespace: %s}
        spec:
          selector: {matchLabels: {app: tracking}}
          port: %d
          route: {hosts: [pods.local]}
          healthCheck: {path: /healthz, intervalMillis: 200, timeoutMillis: 100}
        """
            .formatted(namespace, replica.port()));
    awaitRoutableWithNoDataPlane("pods");
    assertThat(pool("pods").getStatus().registered).isEqualTo(1);
  }

  @Test
  void replicaBoundToTheRegistrarRoleRegistersThroughALease() {
    RenderedManifests.bindRegistrarRole(client, namespace, "replica");
    apply(
        """
        apiVersion: replicapool.dev/v1alpha1
        kind: ReplicaPool
        metadata: {name: registry, namespace: %s}
        spec:
          registration: {leaseDurationMillis: 3000, renewIntervalMillis: 500}
          healthCheck: {enabled: false}
        """
            .formatted(namespace));
    KubernetesClient asReplica =
        closeLater(impersonating("system:serviceaccount:" + namespace + ":replica", namespace));
    LeaseRegistrar registrar =
        LeaseRegistrar.builder(asReplica)
            .namespace(namespace)
            .pool("registry")
            .replica("r1")
            .address("127.0.0.33:8080")
            .leaseDurationMillis(3000)
            .renewIntervalMillis(500)
            .health(() -> true)
            .build();
    closeLater(registrar);
    // First renewal creates the Lease, the second patches it: both as the replica's account.
    assertThat(registrar.renewOnce()).as("create").isTrue();
    assertThat(registrar.renewOnce()).as("patch").isTrue();
    registrar.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(pool("registry").getStatus().registered).isEqualTo(1));
  }

  @Test
  void withTheDataPlanesAccountTheOperatorIsRefused() {
    // The control: the same launch as another account is refused, so the impersonation is real.
    try (OperatorProcess denied =
        OperatorProcess.start(m, apiServer, RenderedManifests.DATAPLANE_SA, "denied-0")) {
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(denied.output())
                      .contains("User \"" + RenderedManifests.DATAPLANE_SA + "\" cannot")
                      .contains("forbidden"));
      assertThat(readyz(denied.adminPort)).as("never ready").isNotEqualTo(200);
    }
  }

  static int readyz(int port) {
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.discarding())
          .statusCode();
    } catch (java.io.IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  static ReplicaPool pool(String name) {
    return client.resources(ReplicaPool.class).inNamespace(namespace).withName(name).get();
  }

  static void apply(String yaml) {
    Kubectl.Result r = kubectl.runWithInput(yaml, "apply", "-f", "-");
    assertThat(r.exitCode()).as(r.output()).isZero();
  }

  /**
   * The operator probed the pool's member and wrote it routable; no data plane runs here, so the
   * pool is not Programmed and Ready says so.
   */
  static void awaitRoutableWithNoDataPlane(String name) {
    awaitCondition(name, "Programmed", "False");
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              ReplicaPool p = pool(name);
              assertThat(p.getStatus().routable).as("%s routable", name).isEqualTo(1);
              assertThat(p.getStatus().conditions)
                  .filteredOn(c -> "Ready".equals(c.getType()))
                  .extracting(Condition::getReason)
                  .containsExactly("NoDataPlanes");
            });
  }

  static void awaitCondition(String name, String type, String status) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              ReplicaPool p = pool(name);
              assertThat(p.getStatus()).as("%s status, written by the operator", name).isNotNull();
              assertThat(p.getStatus().conditions)
                  .filteredOn(c -> type.equals(c.getType()))
                  .extracting(Condition::getStatus)
                  .as("%s condition %s", name, type)
                  .containsExactly(status);
            });
  }

  static <T extends AutoCloseable> T closeLater(T c) {
    return closeLater.add(c);
  }
}
