package dev.replicapool.e2e;

import static dev.replicapool.e2e.RenderedManifests.NAMESPACE;
import static dev.replicapool.e2e.RenderedManifests.OPERATOR_SA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.testing.ApiServerTestBase;
import dev.replicapool.testing.CloseLater;
import dev.replicapool.testing.Kubectl;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The namespace-scoped install: the base with the Component components/namespaced, for two watched
 * namespaces, rendered by the real kubectl and installed on a real API server with the cluster-wide
 * binding of the base gone. {@link ManifestsIT}'s permission table, for this install: every row a
 * real {@code kubectl auth can-i} as the operator's ServiceAccount. Then the real operator runs
 * under exactly these rights with the rendered flags and serves a pool in a watched namespace.
 */
class NamespacedInstallIT extends ApiServerTestBase {
  static String watchedA;
  static String watchedB;
  static String outside;
  static RenderedManifests m;
  static OperatorProcess operator;
  static final CloseLater closeLater = new CloseLater();

  @BeforeAll
  static void renderAndInstall() throws Exception {
    watchedA = apiServer.createNamespace(client, "ns-watched-a");
    watchedB = apiServer.createNamespace(client, "ns-watched-b");
    outside = apiServer.createNamespace(client, "ns-outside");

    String token = RenderedManifests.newToken();
    Path base = RenderedManifests.copyOfBase(token);
    Path component = base.resolve("components").resolve("namespaced");
    assertThat(script(component, watchedA + "," + watchedB)).contains("wrote");
    Path overlay =
        RenderedManifests.overlayWithComponent(base, component, "replicapool-namespaced-overlay-");
    m = RenderedManifests.render(kubectl, client, overlay, token);

    // This API server may hold the cluster-wide install of other tests: take its binding away, so
    // that only what this install grants is granted. restoreTheBase() puts it back.
    for (String kind : List.of("clusterrolebinding", "clusterrole")) {
      Kubectl.Result r =
          kubectl.run("delete", kind, "replicapool-operator", "--ignore-not-found", "--wait");
      assertThat(r.exitCode()).as(r.output()).isZero();
    }
    m.applyNamespaceCrdAndRbac(kubectl);
    operator = OperatorProcess.start(m, apiServer, OPERATOR_SA, "operator-namespaced-0");
  }

  @AfterAll
  static void restoreTheBase() {
    closeLater.closeAll();
    if (operator != null) {
      operator.close();
    }
    RenderedManifests.render(kubectl, client).applyNamespaceCrdAndRbac(kubectl);
  }

  static String script(Path component, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(component.resolve("generate-namespaced-rbac.sh").toString());
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return p.exitValue() + ": " + out;
  }

  @Test
  void rendersRolesInTheWatchedNamespacesOnlyAndNoClusterRoleForTheOperator() {
    assertThat(m.all(ClusterRole.class))
        .extracting(r -> r.getMetadata().getName())
        .doesNotContain("replicapool-operator");
    assertThat(m.all(ClusterRoleBinding.class))
        .as("no ClusterRoleBinding names the operator")
        .allSatisfy(
            b ->
                assertThat(b.getSubjects())
                    .noneMatch(s -> s.getName().equals("replicapool-operator")));
    // What remains cluster-wide grants the operator nothing: the registrar role (bound by users in
    // their namespaces) and the view/edit aggregation.
    assertThat(m.all(ClusterRole.class))
        .extracting(r -> r.getMetadata().getName())
        .containsExactlyInAnyOrder("replicapool-registrar", "replicapool-view", "replicapool-edit");
    assertThat(m.all(Role.class))
        .extracting(r -> r.getMetadata().getNamespace() + "/" + r.getMetadata().getName())
        .containsExactlyInAnyOrder(
            watchedA + "/replicapool-operator",
            watchedB + "/replicapool-operator",
            NAMESPACE + "/replicapool-operator-leader-election");
    // The generator copies the base ClusterRole's rules: a rule added there reaches every Role.
    var clusterWide =
        RenderedManifests.render(kubectl, client)
            .one(ClusterRole.class, "replicapool-operator")
            .getRules();
    assertThat(m.all(Role.class))
        .filteredOn(r -> r.getMetadata().getName().equals("replicapool-operator"))
        .allSatisfy(r -> assertThat(r.getRules()).isEqualTo(clusterWide));
    assertThat(m.all(RoleBinding.class))
        .allSatisfy(
            b ->
                assertThat(b.getSubjects())
                    .singleElement()
                    .satisfies(
                        s -> {
                          assertThat(s.getName()).isEqualTo("replicapool-operator");
                          assertThat(s.getNamespace()).isEqualTo(NAMESPACE);
                        }));
    List<String> args =
        RenderedManifests.template(m.one(Deployment.class, "replicapool-operator"))
            .getSpec()
            .getContainers()
            .get(0)
            .getArgs();
    assertThat(args).contains("--namespaces=" + watchedA + "," + watchedB);
  }

  @Test
  void serverSideDryRunAcceptsTheWholeInstall() {
    Kubectl.Result r = m.serverSideDryRun(kubectl);
    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.stderr()).doesNotContain("Warning");
  }

  @Test
  void generatorRefusesNamesAndSystemNamespaces() throws Exception {
    Path component = RenderedManifests.copyOfBase("t").resolve("components").resolve("namespaced");
    assertThat(script(component, "kube-node-lease")).startsWith("2: ").contains("refusing");
    assertThat(script(component, "shop,kube-system")).startsWith("2: ").contains("refusing");
    assertThat(script(component, "Bad_Name")).startsWith("2: ").contains("not a namespace name");
    assertThat(script(component)).startsWith("2: ").contains("usage");
    assertThat(component.resolve("watched-namespaces.yaml")).doesNotExist();
  }

  static Stream<Arguments> namespacedPermissions() {
    String a = "--namespace=" + watchedA;
    String b = "--namespace=" + watchedB;
    String out = "--namespace=" + outside;
    String all = "-A";
    String sys = "--namespace=" + NAMESPACE;
    String nodeLease = "--namespace=kube-node-lease";
    String kubeSystem = "--namespace=kube-system";
    String lease = "leases.coordination.k8s.io";
    String pools = "replicapools.replicapool.dev";
    return Stream.of(
        // In the watched namespaces: what the operator does.
        Arguments.of("list", pools, a, true),
        Arguments.of("watch", pools, b, true),
        Arguments.of("patch", pools + "/status", a, true),
        Arguments.of("list", "pods", a, true),
        Arguments.of("watch", "pods", b, true),
        Arguments.of("list", lease, a, true),
        Arguments.of("delete", lease, b, true),
        Arguments.of("list", "secrets", a, true),
        Arguments.of("watch", "secrets", b, true),
        Arguments.of("create", "events", a, true),
        Arguments.of("patch", "events", b, true),
        // Its own leader Lease, in its own namespace.
        Arguments.of("create", lease, sys, true),
        Arguments.of("update", lease + "/replicapool-operator-leader", sys, true),
        // Nothing cluster-wide.
        Arguments.of("list", pools, all, false),
        Arguments.of("list", "secrets", all, false),
        Arguments.of("watch", "secrets", all, false),
        Arguments.of("list", "pods", all, false),
        Arguments.of("list", lease, all, false),
        Arguments.of("delete", lease, all, false),
        // Nothing in a namespace it does not watch.
        Arguments.of("list", "secrets", out, false),
        Arguments.of("watch", "secrets", out, false),
        Arguments.of("get", "secrets", out, false),
        Arguments.of("delete", "secrets", out, false),
        Arguments.of("list", lease, out, false),
        Arguments.of("delete", lease, out, false),
        Arguments.of("list", "pods", out, false),
        Arguments.of("list", pools, out, false),
        Arguments.of("create", "events", out, false),
        // kube-node-lease and kube-system are untouchable.
        Arguments.of("list", lease, nodeLease, false),
        Arguments.of("get", lease, nodeLease, false),
        Arguments.of("delete", lease, nodeLease, false),
        Arguments.of("update", lease, nodeLease, false),
        Arguments.of("list", "secrets", kubeSystem, false),
        Arguments.of("delete", "secrets", kubeSystem, false),
        Arguments.of("delete", lease, kubeSystem, false),
        // Not even in the watched namespaces: reading a Secret by name, writing Secrets or specs.
        Arguments.of("get", "secrets", a, false),
        Arguments.of("delete", "secrets", a, false),
        Arguments.of("create", "secrets", a, false),
        Arguments.of("update", pools, a, false),
        Arguments.of("delete", "pods", a, false),
        Arguments.of("create", lease, a, false),
        Arguments.of("delete", lease, sys, false));
  }

  @ParameterizedTest(name = "operator {0} {1} {2}: {3}")
  @MethodSource("namespacedPermissions")
  void theOperatorMayDoExactlyThisInTheNamespacedInstall(
      String verb, String resource, String scope, boolean allowed) {
    List<String> args = new ArrayList<>(List.of("auth", "can-i", verb));
    if (resource.endsWith("/status")) {
      args.add(resource.substring(0, resource.indexOf('/')));
      args.add("--subresource=status");
    } else {
      args.add(resource);
    }
    args.add(scope);
    args.add("--as=" + OPERATOR_SA);
    Kubectl.Result r = kubectl.run(args.toArray(String[]::new));
    assertThat(r.stderr()).doesNotContain("doesn't have a resource type");
    assertThat(r.exitCode()).as(r.output()).isIn(0, 1);
    boolean yes = r.exitCode() == 0 && r.stdout().trim().equals("yes");
    assertThat(yes).as("operator may %s %s (%s)", verb, resource, scope).isEqualTo(allowed);
  }

  @Test
  void theOperatorRunsUnderTheseRightsAndServesOnlyTheWatchedNamespaces() {
    ReplicaProcess replica =
        closeLater(ReplicaProcess.start("n1", "127.0.0.41", ReplicaProcess.freePort("127.0.0.41")));
    for (String ns : List.of(watchedA, outside)) {
      Kubectl.Result r =
          kubectl.runWithInput(
              """
              apiVersion: replicapool.dev/v1alpha1
              kind: ReplicaPool
              metadata: {name: scoped, namespace: %s}
              spec:
                endpoints: [{host: %s, port: %d}]
                healthCheck: {path: /healthz, intervalMillis: 200, timeoutMillis: 100}
              """
                  .formatted(ns, replica.host(), replica.port()),
              "apply",
              "-f",
              "-");
      assertThat(r.exitCode()).as(r.output()).isZero();
    }
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              ReplicaPool p = pool(watchedA);
              assertThat(p.getStatus())
                  .as("status written by the operator (log:\n%s)", operator.output())
                  .isNotNull();
              // Probed and written routable; no data plane runs here, so not Ready.
              assertThat(p.getStatus().routable).isEqualTo(1);
              assertThat(p.getStatus().conditions)
                  .filteredOn(c -> c.getType().equals("Programmed"))
                  .extracting(Condition::getReason)
                  .containsExactly("NoDataPlanes");
            });
    // The pool outside stays untouched, and the operator logged no forbidden call.
    await()
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(10))
        .until(() -> pool(outside).getStatus() == null);
    assertThat(operator.output()).doesNotContain("Forbidden").doesNotContain("forbidden");
  }

  static ReplicaPool pool(String namespace) {
    return client.resources(ReplicaPool.class).inNamespace(namespace).withName("scoped").get();
  }

  static <T extends AutoCloseable> T closeLater(T c) {
    return closeLater.add(c);
  }
}
