package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.testing.HostHttp;
import dev.replicapool.testing.Kubectl;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The install on a real cluster, whichever one a subclass brings up (kind in Docker, or
 * scripts/local-cluster.sh): {@code kubectl apply -k manifests/}, the sample pool of
 * manifests/samples/tracking.yaml with Pods the kubelet runs and reports, traffic through the data
 * plane's Service, then disruptions under steady load that must cost no request, and a scale-up
 * whose new Pod must become routable in bounded time.
 *
 * <p>The tests run in order on one installation; each leaves it as it found it (3 members, 2 data
 * planes, 1 leading operator). Figures go to standard output and to {@code
 * target/cluster-e2e-figures.txt}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class ClusterE2e {
  static final String SYSTEM = ClusterView.SYSTEM;
  static final String SHOP = ClusterView.SHOP;
  static final String POOL_HOST = "tracking.shop.example";
  static final Duration ROLLOUT = ClusterView.ROLLOUT;
  static final Duration SCALE_UP_BOUND = Duration.ofSeconds(90);

  static E2eCluster cluster;
  static KubernetesClient client;
  static Kubectl kubectl;
  static ClusterView view;
  static InetSocketAddress dataPlane;
  static Path installed = RenderedManifests.manifestsDir();

  /** Subclasses call this from their {@code @BeforeAll} with the cluster they started. */
  static void use(E2eCluster started) throws IOException {
    cluster = started;
    client =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(Files.readString(started.kubeconfig())))
            .build();
    kubectl = new Kubectl(started.kubeconfig());
    view = new ClusterView(client, kubectl);
  }

  /** Removes the install (a reused local cluster is then as before); then stops the cluster. */
  @AfterAll
  static void uninstallAndStopCluster() {
    if (kubectl != null) {
      kubectl.run(
          "delete",
          "-f",
          RenderedManifests.manifestsDir().resolve("samples/tracking.yaml").toString(),
          "--ignore-not-found",
          "--timeout=120s");
      kubectl.run("delete", "-k", installed.toString(), "--ignore-not-found", "--timeout=120s");
    }
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void installThenRouteTrafficToEveryReplicaOfAPool() throws Exception {
    // 1. The install, as docs/INSTALL.md has it (the token file lives in a copy of the base).
    installed = RenderedManifests.copyOfBase(RenderedManifests.newToken());
    Kubectl.Result install = kubectl.run("apply", "-k", installed.toString());
    assertThat(install.exitCode()).as(install.output()).isZero();
    // Readiness means leadership: exactly one of the two operator replicas becomes ready.
    view.awaitReadyReplicas(SYSTEM, "replicapool-operator", 1);
    assertThat(view.deployment(SYSTEM, "replicapool-operator").getStatus().getReplicas())
        .isEqualTo(2);

    // 2. Three sample replicas and the pool that selects them: what the kubelet reports.
    Path sample = RenderedManifests.manifestsDir().resolve("samples").resolve("tracking.yaml");
    Kubectl.Result pool = kubectl.run("apply", "-f", sample.toString());
    assertThat(pool.exitCode()).as(pool.output()).isZero();
    view.awaitReadyReplicas(SHOP, "tracking", 3);
    view.awaitPoolRoutes(3);
    view.awaitReadyReplicas(SYSTEM, "replicapool-dataplane", 2);
    await()
        .atMost(Duration.ofMinutes(1))
        .untilAsserted(
            () ->
                assertThat(ClusterView.condition(view.pool(), "DataPlaneSynced"))
                    .isEqualTo("True"));

    // 3. Traffic through the data plane's Service reaches every replica.
    dataPlane = cluster.reach(client, SYSTEM, "replicapool-dataplane", 80);
    await()
        .atMost(Duration.ofMinutes(1))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(HostHttp.get(dataPlane, POOL_HOST, "/track/0").status()).isEqualTo(200));
    Map<String, Integer> perReplica = new HashMap<>();
    for (int i = 0; i < 90; i++) {
      HostHttp.Reply r = HostHttp.get(dataPlane, POOL_HOST, "/track/" + i);
      assertThat(r.status()).as("request %d: %s", i, r.body()).isEqualTo(200);
      assertThat(r.header("x-replica")).as("x-replica of request %d", i).isPresent();
      perReplica.merge(r.header("x-replica").get(), 1, Integer::sum);
    }
    assertThat(perReplica.keySet())
        .as("replicas that answered")
        .containsExactlyInAnyOrderElementsOf(view.memberNames());
    // Two data planes each spread by smooth weighted round-robin; the Service spreads between them.
    assertThat(perReplica.values())
        .as("requests per replica %s", perReplica)
        .allMatch(n -> n >= 15);
    // An unknown Host is no pool's: the data plane says so instead of guessing.
    assertThat(HostHttp.get(dataPlane, "nobody.example", "/").status()).isBetween(400, 599);
  }

  @Test
  @Order(2)
  void deletingAMemberPodCostsNoRequest() throws Exception {
    String victim = view.memberNames().get(0);
    underLoad(
        "kubectl delete pod of a member",
        () -> {
          run("delete", "pod", "-n", SHOP, victim, "--wait=true");
          view.awaitReadyReplicas(SHOP, "tracking", 3);
          view.awaitPoolRoutes(3);
        });
    assertThat(view.memberNames()).doesNotContain(victim);
  }

  @Test
  @Order(3)
  void rollingRestartOfTheMembersCostsNoRequest() throws Exception {
    Set<String> before = Set.copyOf(view.memberNames());
    underLoad(
        "kubectl rollout restart of the members",
        () -> {
          run("rollout", "restart", "deployment/tracking", "-n", SHOP);
          run("rollout", "status", "deployment/tracking", "-n", SHOP, "--timeout=5m");
          view.awaitReadyReplicas(SHOP, "tracking", 3);
          view.awaitPoolRoutes(3);
        });
    assertThat(view.memberNames()).doesNotContainAnyElementsOf(before);
  }

  @Test
  @Order(4)
  void deletingTheLeadingOperatorPodCostsNoRequest() throws Exception {
    String leader = view.leaderPod();
    underLoad(
        "deleting the leader operator Pod " + leader,
        () -> {
          run("delete", "pod", "-n", SYSTEM, leader, "--wait=true");
          await()
              .atMost(ROLLOUT)
              .pollInterval(Duration.ofSeconds(1))
              .untilAsserted(() -> assertThat(view.leaderPod()).isNotEqualTo(leader));
          view.awaitReadyReplicas(SYSTEM, "replicapool-operator", 1);
          view.awaitPoolRoutes(3);
        });
  }

  @Test
  @Order(5)
  void evictingADataPlanePodUnderItsDisruptionBudgetCostsNoRequest() throws Exception {
    List<String> planes = view.podNames(SYSTEM, "app.kubernetes.io/name", "replicapool-dataplane");
    String victim = planes.get(0);
    underLoad(
        "eviction of data plane Pod " + victim + " (PDB minAvailable 1)",
        () -> {
          // What kubectl drain does for each Pod: the Eviction API, which the PDB may refuse.
          await()
              .atMost(Duration.ofMinutes(1))
              .until(() -> client.pods().inNamespace(SYSTEM).withName(victim).evict());
          await()
              .atMost(ROLLOUT)
              .pollInterval(Duration.ofSeconds(1))
              .until(() -> client.pods().inNamespace(SYSTEM).withName(victim).get() == null);
          view.awaitReadyReplicas(SYSTEM, "replicapool-dataplane", 2);
        });
  }

  @Test
  @Order(6)
  void aFourthMemberBecomesRoutableWithinTheBound() throws Exception {
    Set<String> before = Set.copyOf(view.memberNames());
    try (SteadyLoad load = new SteadyLoad(dataPlane, POOL_HOST, 4, Duration.ofMinutes(5))) {
      long t0 = System.nanoTime();
      run("scale", "deployment/tracking", "-n", SHOP, "--replicas=4");
      String added =
          await()
              .atMost(SCALE_UP_BOUND)
              .pollInterval(Duration.ofMillis(200))
              .until(
                  () ->
                      view.memberNames().stream()
                          .filter(n -> !before.contains(n))
                          .filter(n -> load.firstAnswerNanos(n) != null)
                          .findFirst()
                          .orElse(null),
                  n -> n != null);
      Duration routable = Duration.ofNanos(load.firstAnswerNanos(added) - t0);
      Pod pod = client.pods().inNamespace(SHOP).withName(added).get();
      SteadyLoad.Summary s = load.stop();
      figure(
          "kubectl scale --replicas=4: the fourth Pod "
              + added
              + " answered through the data plane "
              + routable.toMillis()
              + " ms after the command (Pod IP "
              + pod.getStatus().getPodIP()
              + "); meanwhile "
              + s);
      assertThat(s.failed()).as("failed requests while scaling: %s", s).isZero();
      assertThat(routable).isLessThan(SCALE_UP_BOUND);
    }
  }

  // ---------------------------------------------------------------- disruptions under load

  interface Disruption {
    void run() throws Exception;
  }

  /** Runs the disruption under steady load (and 3 s of load after it), expecting 0 failures. */
  static void underLoad(String what, Disruption disruption) throws Exception {
    assertThat(dataPlane).as("the install test ran first").isNotNull();
    SteadyLoad.Summary s;
    try (SteadyLoad load = new SteadyLoad(dataPlane, POOL_HOST, 4, Duration.ofMinutes(8))) {
      await().atMost(Duration.ofSeconds(30)).until(() -> load.okSoFar() > 20);
      long t0 = System.nanoTime();
      disruption.run();
      long tookMillis = (System.nanoTime() - t0) / 1_000_000;
      long okAtEnd = load.okSoFar();
      await().atMost(Duration.ofSeconds(30)).until(() -> load.okSoFar() > okAtEnd + 20);
      s = load.stop();
      figure(what + " (settled in " + tookMillis + " ms): " + s);
    }
    assertThat(s.failed()).as("failed requests during %s: %s", what, s).isZero();
  }

  static void run(String... args) {
    Kubectl.Result r = kubectl.run(args);
    assertThat(r.exitCode()).as("kubectl %s: %s", String.join(" ", args), r.output()).isZero();
  }

  static void figure(String line) {
    String l = "[cluster-e2e " + cluster.getClass().getSimpleName() + "] " + line;
    System.out.println(l);
    try {
      Path out = Path.of("target", "cluster-e2e-figures.txt");
      Files.createDirectories(out.getParent());
      Files.writeString(out, l + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      System.out.println("could not write the figure: " + e);
    }
  }
}
