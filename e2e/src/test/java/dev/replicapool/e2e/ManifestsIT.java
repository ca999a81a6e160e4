package dev.replicapool.e2e;

import static dev.replicapool.e2e.RenderedManifests.DATAPLANE_SA;
import static dev.replicapool.e2e.RenderedManifests.NAMESPACE;
import static dev.replicapool.e2e.RenderedManifests.OPERATOR_SA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.TlsMaterial;
import dev.replicapool.controlplane.ControlPlaneClient;
import dev.replicapool.controlplane.ControlPlaneServer;
import dev.replicapool.controlplane.SnapshotApplier;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.dataplane.DataPlaneArgs;
import dev.replicapool.operator.OperatorConfig;
import dev.replicapool.operator.OperatorFlags;
import dev.replicapool.testing.ApiServerTestBase;
import dev.replicapool.testing.Kubectl;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.dns.AddressResolverOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * manifests/ rendered with the real {@code kubectl kustomize}, checked by a real kube-apiserver
 * (server-side dry run, Pod Security admission, RBAC authorization through {@code kubectl auth
 * can-i}), and read object by object for what no API server checks: hardening, probes, the
 * operator's and data plane's real flag parsers against the args, Services against named ports.
 */
class ManifestsIT extends ApiServerTestBase {
  static RenderedManifests m;

  @BeforeAll
  static void renderAndInstallRbac() {
    m = RenderedManifests.render(kubectl, client);
    // The dry run of namespaced objects needs their Namespace, and custom resources their CRD;
    // auth can-i needs the roles: those go in for real.
    m.applyNamespaceCrdAndRbac(kubectl);
  }

  // ---------------------------------------------------------------- rendering and the API server

  @Test
  void rendersEveryPartOfTheInstall() {
    List<String> rendered =
        m.objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList();
    assertThat(rendered)
        .contains(
            "Namespace/replicapool-system",
            "CustomResourceDefinition/replicapools.replicapool.dev",
            "ServiceAccount/replicapool-operator",
            "ServiceAccount/replicapool-dataplane",
            "ClusterRole/replicapool-operator",
            "ClusterRoleBinding/replicapool-operator",
            "Role/replicapool-operator-leader-election",
            "RoleBinding/replicapool-operator-leader-election",
            "ClusterRole/replicapool-registrar",
            "Secret/replicapool-control-plane-token",
            "Deployment/replicapool-operator",
            "Service/replicapool-control-plane",
            "Deployment/replicapool-dataplane",
            "Service/replicapool-dataplane",
            "Service/replicapool-dataplane-admin",
            "PodDisruptionBudget/replicapool-dataplane");
    assertThat(m.objects)
        .filteredOn(o -> !o.getKind().equals("Namespace"))
        .filteredOn(o -> !o.getKind().startsWith("Cluster"))
        .filteredOn(o -> !o.getKind().equals("CustomResourceDefinition"))
        .allSatisfy(o -> assertThat(o.getMetadata().getNamespace()).isEqualTo(NAMESPACE));

    Secret token = m.one(Secret.class, "replicapool-control-plane-token");
    assertThat(token.getData()).containsOnlyKeys("token");
    assertThat(new String(Base64.getMimeDecoder().decode(token.getData().get("token"))))
        .as("the generated Secret carries the token file")
        .isEqualTo(m.token);
  }

  @Test
  void crdInTheBaseIsTheCommittedCrd() throws IOException {
    String name = "replicapools.replicapool.dev-v1.yml";
    Path committed = RenderedManifests.repoRoot().resolve("crds").resolve(name);
    Path copy = RenderedManifests.manifestsDir().resolve("crd").resolve(name);
    assertThat(Files.readString(copy))
        .as(
            "manifests/crd/%s differs from crds/%s: run `cp crds/%s manifests/crd/`"
                + " (kustomize cannot reference files outside its base)",
            name, name, name)
        .isEqualTo(Files.readString(committed));
  }

  @Test
  void serverSideDryRunAcceptsEveryObjectWithoutWarnings() {
    Kubectl.Result dryRun =
        kubectl.runWithInput(
            m.yaml, "apply", "--server-side", "--dry-run=server", "--force-conflicts", "-f", "-");
    assertThat(dryRun.exitCode()).as(dryRun.output()).isZero();
    // Pod Security admission ("restricted" is enforced on the namespace) and deprecated APIs
    // answer with warnings, not errors.
    assertThat(dryRun.stderr()).as(dryRun.stderr()).doesNotContainIgnoringCase("warning");
    assertThat(dryRun.stdout())
        .contains("deployment.apps/replicapool-operator serverside-applied (server dry run)")
        .contains("deployment.apps/replicapool-dataplane serverside-applied (server dry run)")
        .contains(
            "poddisruptionbudget.policy/replicapool-dataplane serverside-applied (server dry run)");
  }

  @Test
  void dryRunCatchesABrokenObjectAndAnInsecurePod() {
    Deployment broken = copy(m.one(Deployment.class, "replicapool-operator"));
    broken
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0)
        .getPorts()
        .get(0)
        .setContainerPort(70000);
    Kubectl.Result refused =
        kubectl.runWithInput(
            Serialization.asYaml(broken), "apply", "--server-side", "--dry-run=server", "-f", "-");
    assertThat(refused.exitCode()).as(refused.output()).isNotZero();
    assertThat(refused.stderr()).contains("containerPort");

    Deployment insecure = copy(m.one(Deployment.class, "replicapool-dataplane"));
    insecure
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0)
        .getSecurityContext()
        .setAllowPrivilegeEscalation(true);
    Kubectl.Result warned =
        kubectl.runWithInput(
            Serialization.asYaml(insecure),
            "apply",
            "--server-side",
            "--dry-run=server",
            "-f",
            "-");
    assertThat(warned.stderr())
        .contains("violate PodSecurity")
        .contains("allowPrivilegeEscalation");
  }

  @Test
  void samplePoolAppliesUnderRestrictedPodSecurity() throws IOException {
    String ns = "shop-" + ProcessHandle.current().pid();
    String sample =
        Files.readString(
                RenderedManifests.manifestsDir().resolve("samples").resolve("tracking.yaml"))
            .replace("name: shop\n", "name: " + ns + "\n")
            .replace("namespace: shop\n", "namespace: " + ns + "\n");
    assertThat(sample).doesNotContain(" shop\n");
    String[] docs = sample.split("(?m)^---$");
    Kubectl.Result namespace = kubectl.runWithInput(docs[0], "apply", "--server-side", "-f", "-");
    assertThat(namespace.exitCode()).as(namespace.output()).isZero();
    Kubectl.Result dryRun =
        kubectl.runWithInput(sample, "apply", "--server-side", "--dry-run=server", "-f", "-");
    assertThat(dryRun.exitCode()).as(dryRun.output()).isZero();
    assertThat(dryRun.stderr()).as(dryRun.stderr()).doesNotContainIgnoringCase("warning");
    assertThat(dryRun.stdout())
        .contains("replicapool.replicapool.dev/tracking serverside-applied (server dry run)");
  }

  // ---------------------------------------------------------------- RBAC

  @Test
  void noRoleUsesAWildcard() {
    List<PolicyRule> rules = new ArrayList<>();
    m.all(ClusterRole.class).forEach(r -> rules.addAll(r.getRules()));
    m.all(Role.class).forEach(r -> rules.addAll(r.getRules()));
    assertThat(rules).hasSizeGreaterThanOrEqualTo(8);
    assertThat(rules)
        .allSatisfy(
            rule -> {
              assertThat(rule.getVerbs()).as("verbs of %s", rule).isNotEmpty().doesNotContain("*");
              assertThat(rule.getResources())
                  .as("resources of %s", rule)
                  .isNotEmpty()
                  .noneMatch(r -> r.contains("*"));
              assertThat(rule.getApiGroups()).as("apiGroups of %s", rule).doesNotContain("*");
              assertThat(rule.getNonResourceURLs()).as("nonResourceURLs of %s", rule).isEmpty();
              assertThat(rule.getVerbs())
                  .as("%s: escalate, bind and impersonate are never needed", rule)
                  .doesNotContain("escalate", "bind", "impersonate");
            });
  }

  static Stream<Arguments> operatorAndDataPlanePermissions() {
    String all = "-A";
    String ns = "--namespace=shop";
    String sys = "--namespace=" + NAMESPACE;
    return Stream.of(
        // The operator: what it does, then what it must not.
        Arguments.of(OPERATOR_SA, "list", "replicapools.replicapool.dev", all, true),
        Arguments.of(OPERATOR_SA, "watch", "replicapools.replicapool.dev", all, true),
        Arguments.of(OPERATOR_SA, "patch", "replicapools.replicapool.dev/status", ns, true),
        Arguments.of(OPERATOR_SA, "list", "pods", all, true),
        Arguments.of(OPERATOR_SA, "watch", "pods", all, true),
        Arguments.of(OPERATOR_SA, "patch", "pods/status", ns, true),
        Arguments.of(OPERATOR_SA, "list", "leases.coordination.k8s.io", all, true),
        Arguments.of(OPERATOR_SA, "delete", "leases.coordination.k8s.io", ns, true),
        Arguments.of(OPERATOR_SA, "list", "secrets", all, true),
        Arguments.of(OPERATOR_SA, "watch", "secrets", all, true),
        Arguments.of(OPERATOR_SA, "list", "configmaps", all, true),
        Arguments.of(OPERATOR_SA, "watch", "configmaps", all, true),
        Arguments.of(OPERATOR_SA, "create", "events", ns, true),
        Arguments.of(OPERATOR_SA, "patch", "events", ns, true),
        Arguments.of(OPERATOR_SA, "create", "leases.coordination.k8s.io", sys, true),
        Arguments.of(
            OPERATOR_SA,
            "update",
            "leases.coordination.k8s.io/replicapool-operator-leader",
            sys,
            true),
        Arguments.of(
            OPERATOR_SA,
            "patch",
            "leases.coordination.k8s.io/replicapool-operator-leader",
            sys,
            true),
        Arguments.of(OPERATOR_SA, "update", "replicapools.replicapool.dev", ns, false),
        Arguments.of(OPERATOR_SA, "delete", "replicapools.replicapool.dev", ns, false),
        Arguments.of(OPERATOR_SA, "delete", "pods", ns, false),
        Arguments.of(OPERATOR_SA, "create", "pods", ns, false),
        Arguments.of(OPERATOR_SA, "patch", "pods", ns, false),
        Arguments.of(OPERATOR_SA, "update", "pods/status", ns, false),
        Arguments.of(OPERATOR_SA, "get", "configmaps", ns, false),
        Arguments.of(OPERATOR_SA, "create", "configmaps", ns, false),
        Arguments.of(OPERATOR_SA, "get", "secrets", ns, false),
        Arguments.of(OPERATOR_SA, "create", "secrets", ns, false),
        Arguments.of(OPERATOR_SA, "create", "leases.coordination.k8s.io", ns, false),
        Arguments.of(
            OPERATOR_SA, "update", "leases.coordination.k8s.io/someone-elses-lease", sys, false),
        Arguments.of(OPERATOR_SA, "delete", "events", ns, false),
        Arguments.of(
            OPERATOR_SA, "create", "customresourcedefinitions.apiextensions.k8s.io", all, false),
        Arguments.of(
            OPERATOR_SA, "create", "clusterrolebindings.rbac.authorization.k8s.io", all, false),
        // The data plane: nothing at all.
        Arguments.of(DATAPLANE_SA, "list", "pods", all, false),
        Arguments.of(DATAPLANE_SA, "get", "pods", sys, false),
        Arguments.of(DATAPLANE_SA, "get", "secrets", sys, false),
        Arguments.of(DATAPLANE_SA, "list", "replicapools.replicapool.dev", all, false),
        Arguments.of(DATAPLANE_SA, "get", "leases.coordination.k8s.io", sys, false));
  }

  @ParameterizedTest(name = "{0} {1} {2} {3}: {4}")
  @MethodSource("operatorAndDataPlanePermissions")
  void roleBindingsGrantExactlyWhatIsNeeded(
      String user, String verb, String resource, String scope, boolean allowed) {
    assertThat(canI(user, verb, resource, scope))
        .as("%s may %s %s (%s)", user, verb, resource, scope)
        .isEqualTo(allowed);
  }

  @Test
  void registrarRoleLetsAReplicaRenewItsLeaseInItsOwnNamespaceOnly() {
    String team = apiServer.createNamespace(client, "registrar");
    String other = apiServer.createNamespace(client, "other");
    // What docs/INSTALL.md tells a user to do for self-registering replicas.
    RenderedManifests.bindRegistrarRole(client, team, "tracking");
    String replica = "system:serviceaccount:" + team + ":tracking";
    String lease = "leases.coordination.k8s.io";
    for (String verb : List.of("get", "create", "patch", "update")) {
      assertThat(canI(replica, verb, lease, "--namespace=" + team)).as(verb).isTrue();
      assertThat(canI(replica, verb, lease, "--namespace=" + other))
          .as(verb + " elsewhere")
          .isFalse();
    }
    assertThat(canI(replica, "delete", lease, "--namespace=" + team)).isFalse();
    assertThat(canI(replica, "list", "pods", "--namespace=" + team)).isFalse();
  }

  /** {@code kubectl auth can-i} impersonating a user; a typo in a resource fails, not "no". */
  static boolean canI(String user, String verb, String resource, String scope) {
    List<String> args = new ArrayList<>(List.of("auth", "can-i", verb));
    int slash = resource.indexOf('/');
    if (resource.endsWith("/status")) {
      args.add(resource.substring(0, slash));
      args.add("--subresource=status");
    } else {
      args.add(resource);
    }
    args.add(scope);
    args.add("--as=" + user);
    Kubectl.Result r = kubectl.run(args.toArray(String[]::new));
    assertThat(r.stderr())
        .as("kubectl auth can-i %s", String.join(" ", args))
        .doesNotContain("doesn't have a resource type");
    assertThat(r.exitCode()).as(r.output()).isIn(0, 1);
    return r.exitCode() == 0 && r.stdout().trim().equals("yes");
  }

  // ---------------------------------------------------------------- workloads

  @Test
  void everyContainerIsHardenedAndProbed() {
    List<Deployment> deployments = m.all(Deployment.class);
    assertThat(deployments).hasSize(2);
    for (Deployment d : deployments) {
      String name = d.getMetadata().getName();
      PodSpec pod = RenderedManifests.template(d).getSpec();
      PodSecurityContext podSc = pod.getSecurityContext();
      assertThat(podSc).as("%s pod securityContext", name).isNotNull();
      assertThat(podSc.getRunAsNonRoot()).as("%s pod runAsNonRoot", name).isTrue();
      assertThat(podSc.getRunAsUser()).as("%s pod runAsUser", name).isNotNull().isPositive();
      assertThat(pod.getEnableServiceLinks())
          .as("%s: Service links would inject REPLICAPOOL_*_PORT variables the flags read", name)
          .isFalse();
      assertThat(pod.getContainers()).isNotEmpty();
      for (Container c : pod.getContainers()) {
        String where = name + "/" + c.getName();
        SecurityContext sc = c.getSecurityContext();
        assertThat(sc).as("%s securityContext", where).isNotNull();
        assertThat(sc.getRunAsNonRoot()).as("%s runAsNonRoot", where).isTrue();
        assertThat(sc.getReadOnlyRootFilesystem()).as("%s readOnlyRootFilesystem", where).isTrue();
        assertThat(sc.getAllowPrivilegeEscalation())
            .as("%s allowPrivilegeEscalation", where)
            .isFalse();
        assertThat(sc.getPrivileged()).as("%s privileged", where).isNotEqualTo(Boolean.TRUE);
        assertThat(sc.getCapabilities().getDrop()).as("%s drops", where).containsExactly("ALL");
        assertThat(sc.getCapabilities().getAdd()).as("%s adds", where).isNullOrEmpty();
        assertThat(sc.getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(c.getResources().getRequests())
            .as("%s requests", where)
            .containsKeys("cpu", "memory");
        assertThat(c.getResources().getLimits()).as("%s limits", where).containsKey("memory");
        assertThat(c.getImage()).as("%s image", where).matches("replicapool/[a-z-]+:0\\.1\\.0");
        assertThat(c.getImagePullPolicy()).isEqualTo("IfNotPresent");

        for (Probe p : List.of(c.getLivenessProbe(), c.getReadinessProbe())) {
          assertThat(p).as("%s probes", where).isNotNull();
          assertThat(p.getHttpGet()).as("%s probes are HTTP", where).isNotNull();
          assertThat(portNumber(c, p.getHttpGet().getPort()))
              .as("%s probe port %s is a container port", where, p.getHttpGet().getPort())
              .isPresent();
        }
        assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");

        // A read-only root needs a writable /tmp (JVM, Vert.x and Netty scratch files).
        VolumeMount tmp =
            c.getVolumeMounts().stream()
                .filter(v -> v.getMountPath().equals("/tmp"))
                .findFirst()
                .orElseThrow(() -> new AssertionError(where + " has no /tmp mount"));
        assertThat(volume(pod, tmp.getName()).getEmptyDir()).as("%s /tmp", where).isNotNull();
      }
    }
  }

  @Test
  void operatorRunsTwoReplicasUnderLeaderElectionWithFlagsItUnderstands() {
    Deployment d = m.one(Deployment.class, "replicapool-operator");
    assertThat(d.getSpec().getReplicas()).isEqualTo(2);
    // Readiness is leadership: a rollout must not wait for a second ready replica.
    assertThat(d.getSpec().getStrategy().getRollingUpdate().getMaxUnavailable())
        .isEqualTo(new IntOrString("100%"));
    PodSpec pod = RenderedManifests.template(d).getSpec();
    assertThat(pod.getServiceAccountName()).isEqualTo("replicapool-operator");
    Container c = pod.getContainers().get(0);
    String[] args =
        RenderedManifests.expandedArgs(
            c, Map.of("metadata.namespace", NAMESPACE, "metadata.name", "operator-0"));

    // The operator's own parser: an unknown or misspelt flag fails here, not in a cluster.
    Map<String, String> flags = OperatorFlags.parse(args);
    assertThat(flags).containsEntry("leader-election-namespace", NAMESPACE);
    assertThat(flags.get("control-plane-port"))
        .isEqualTo(String.valueOf(portNumber(c, new IntOrString("control-plane")).orElseThrow()));
    assertThat(flags.get("admin-port"))
        .isEqualTo(String.valueOf(portNumber(c, new IntOrString("admin")).orElseThrow()));
    assertTokenFileIsTheMountedSecret(pod, c, flags.get("token-file"));
    assertThatThrownBy(() -> OperatorFlags.parse("--leader-election-namspace=x"))
        .as("the parser refuses a misspelt flag, so the check above means something")
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void dataPlaneArgsParseAndDialTheControlPlaneService() throws Exception {
    Deployment d = m.one(Deployment.class, "replicapool-dataplane");
    assertThat(d.getSpec().getReplicas()).isEqualTo(2);
    PodSpec pod = RenderedManifests.template(d).getSpec();
    Container c = pod.getContainers().get(0);
    String[] args =
        RenderedManifests.expandedArgs(
            c, Map.of("metadata.namespace", NAMESPACE, "metadata.name", "dataplane-0"));

    String tokenFile = flagValue(args, "--token-file");
    assertTokenFileIsTheMountedSecret(pod, c, tokenFile);
    // Parse with the data plane's own parser; the token path only exists in the Pod.
    Path localToken = Files.createTempFile("token", "");
    Files.writeString(localToken, m.token);
    String[] local =
        Stream.of(args)
            .map(a -> a.equals("--token-file=" + tokenFile) ? "--token-file=" + localToken : a)
            .toArray(String[]::new);
    DataPlane.Config config = DataPlaneArgs.parse(local, Map.of());
    assertThat(config.controlPlane().token()).isEqualTo(m.token);
    assertThat(config.controlPlane().node()).isEqualTo("dataplane-0");
    assertThat(config.adminPort()).isEqualTo(portNumber(c, new IntOrString("admin")).orElseThrow());

    // host:port is <service>.<namespace>.svc:<port> of the Service in front of the operator.
    String host = config.controlPlane().host();
    assertThat(host).isEqualTo("replicapool-control-plane." + NAMESPACE + ".svc");
    Service cp = m.one(Service.class, host.substring(0, host.indexOf('.')));
    assertThat(cp.getSpec().getPorts())
        .extracting(ServicePort::getPort)
        .contains(config.controlPlane().port());
    assertThat(matches(cp.getSpec().getSelector(), m.one(Deployment.class, "replicapool-operator")))
        .as("the control-plane Service selects the operator")
        .isTrue();
  }

  @Test
  void servicesSelectPodsAndTheirNamedPorts() {
    List<Service> services = m.all(Service.class);
    assertThat(services).hasSize(4);
    for (Service s : services) {
      List<Deployment> selected =
          m.all(Deployment.class).stream()
              .filter(d -> matches(s.getSpec().getSelector(), d))
              .toList();
      assertThat(selected)
          .as("Deployments behind Service %s", s.getMetadata().getName())
          .hasSize(1);
      Container c = RenderedManifests.template(selected.get(0)).getSpec().getContainers().get(0);
      for (ServicePort p : s.getSpec().getPorts()) {
        assertThat(portNumber(c, p.getTargetPort()))
            .as("Service %s targetPort %s", s.getMetadata().getName(), p.getTargetPort())
            .isPresent();
      }
    }
    Service traffic = m.one(Service.class, "replicapool-dataplane");
    assertThat(traffic.getSpec().getPorts())
        .extracting(ServicePort::getPort, p -> p.getTargetPort().getStrVal())
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple(80, "http"),
            org.assertj.core.groups.Tuple.tuple(443, "https"));
    assertThat(m.one(Service.class, "replicapool-dataplane-admin").getSpec().getPorts())
        .extracting(ServicePort::getPort)
        .containsExactly(9901);
  }

  @Test
  void dataPlaneHasADisruptionBudgetAndNoApiAccess() {
    PodDisruptionBudget pdb = m.one(PodDisruptionBudget.class, "replicapool-dataplane");
    Deployment dp = m.one(Deployment.class, "replicapool-dataplane");
    assertThat(pdb.getSpec().getMinAvailable()).isEqualTo(new IntOrString(1));
    assertThat(pdb.getSpec().getMinAvailable().getIntVal()).isLessThan(dp.getSpec().getReplicas());
    assertThat(matches(pdb.getSpec().getSelector().getMatchLabels(), dp)).isTrue();

    assertThat(
            m.one(ServiceAccount.class, "replicapool-dataplane").getAutomountServiceAccountToken())
        .isFalse();
    PodSpec pod = RenderedManifests.template(dp).getSpec();
    assertThat(pod.getServiceAccountName()).isEqualTo("replicapool-dataplane");
    assertThat(pod.getAutomountServiceAccountToken()).isFalse();
  }

  // ---------------------------------------------------------------- mutual TLS (Component)

  /**
   * What docs/INSTALL.md says for mutual TLS on the stream: generate-stream-certs.sh, then an
   * overlay of the base with the Component components/mtls. Rendered, dry-run, parsed by the real
   * flag parsers with the Secrets' files, and the generated certificates tried on a real stream.
   */
  @Test
  void mtlsComponentMountsItsSecretsAndItsCertificatesAuthenticateBothSides() throws Exception {
    assumeTrue(hasOpenssl(), "openssl is not installed");
    Path base = RenderedManifests.copyOfBase(m.token);
    Path certs = base.resolve("components").resolve("mtls");
    assertThat(runScript(base.resolve("generate-stream-certs.sh"))).contains("new CA");
    String caKey = Files.readString(certs.resolve("ca.key"));
    String serverCert = Files.readString(certs.resolve("server.crt"));
    assertThat(runScript(base.resolve("generate-stream-certs.sh")))
        .as("a second run keeps what exists, like generate-token.sh")
        .contains("exist");
    assertThat(Files.readString(certs.resolve("server.crt"))).isEqualTo(serverCert);

    Path overlay = RenderedManifests.overlayWithComponent(base, certs, "replicapool-mtls-overlay-");
    Kubectl.Result rendered = kubectl.run("kustomize", overlay.toString());
    assertThat(rendered.exitCode()).as(rendered.stderr()).isZero();
    List<HasMetadata> objects =
        client
            .load(
                new java.io.ByteArrayInputStream(
                    rendered.stdout().getBytes(StandardCharsets.UTF_8)))
            .items();
    Kubectl.Result dryRun =
        kubectl.runWithInput(
            rendered.stdout(),
            "apply",
            "--server-side",
            "--dry-run=server",
            "--force-conflicts",
            "-f",
            "-");
    assertThat(dryRun.exitCode()).as(dryRun.output()).isZero();
    assertThat(dryRun.stderr()).as(dryRun.stderr()).doesNotContainIgnoringCase("warning");

    List<Secret> secrets =
        objects.stream().filter(Secret.class::isInstance).map(Secret.class::cast).toList();
    assertThat(secrets)
        .extracting(sec -> sec.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "replicapool-control-plane-token",
            "replicapool-control-plane-tls",
            "replicapool-dataplane-stream-tls");
    assertThat(secrets)
        .allSatisfy(sec -> assertThat(sec.getMetadata().getNamespace()).isEqualTo(NAMESPACE))
        .allSatisfy(
            sec ->
                assertThat(sec.getData().values())
                    .as("the CA's key is in no Secret")
                    .noneMatch(v -> decode(v).equals(caKey)));

    Deployment operator = oneOf(objects, Deployment.class, "replicapool-operator");
    Deployment dataPlane = oneOf(objects, Deployment.class, "replicapool-dataplane");
    assertThat(secretVolumes(operator))
        .as("the operator never gets the data planes' key")
        .containsExactlyInAnyOrder(
            "replicapool-control-plane-token", "replicapool-control-plane-tls");
    assertThat(secretVolumes(dataPlane))
        .as("the data planes never get the operator's key")
        .containsExactlyInAnyOrder(
            "replicapool-control-plane-token", "replicapool-dataplane-stream-tls");

    // The real parsers, with the files the Pods would see.
    OperatorConfig op =
        OperatorFlags.config(
            withSecretFiles(
                operator,
                secrets,
                Map.of("metadata.namespace", NAMESPACE, "metadata.name", "operator-0")));
    assertThat(op.tlsCertPem()).isEqualTo(serverCert);
    assertThat(op.clientCaPem()).isNotNull();
    assertThat(op.token()).isEqualTo(m.token);
    DataPlane.Config dp =
        DataPlaneArgs.parse(
            withSecretFiles(
                dataPlane,
                secrets,
                Map.of("metadata.namespace", NAMESPACE, "metadata.name", "dataplane-0")),
            Map.of());
    ControlPlaneClient.Options cpo = dp.controlPlane();
    assertThat(cpo.mutualTls()).isTrue();
    assertThat(cpo.host()).isEqualTo("replicapool-control-plane." + NAMESPACE + ".svc");

    // A real stream with these certificates, the Service's name pointing at 127.0.0.1: the data
    // plane checks the operator's name, the operator the data plane's certificate.
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions()
                .setAddressResolverOptions(
                    new AddressResolverOptions()
                        .setHostsValue(Buffer.buffer("127.0.0.1 " + cpo.host() + "\n"))));
    try {
      ControlPlaneServer server =
          new ControlPlaneServer(
              vertx,
              new ControlPlaneServer.Options("127.0.0.1", 0, op.token())
                  .withTls(new TlsMaterial(op.tlsCertPem(), op.tlsKeyPem()))
                  .withClientCa(op.clientCaPem()));
      int port = server.start().await();
      ControlPlaneClient.Options dial =
          ControlPlaneClient.Options.of(cpo.host(), port, cpo.token(), cpo.node())
              .withTrustPem(cpo.trustPem())
              .withBackoff(20, 200);
      ControlPlaneClient withCert =
          new ControlPlaneClient(
              vertx,
              dial.withClientCertificate(cpo.clientCertPem(), cpo.clientKeyPem()),
              ACCEPT_ALL,
              new java.util.Random(1));
      ControlPlaneClient withoutCert =
          new ControlPlaneClient(vertx, dial, ACCEPT_ALL, new java.util.Random(2));
      withCert.start();
      withoutCert.start();
      await().atMost(Duration.ofSeconds(10)).until(withCert::connected);
      await().atMost(Duration.ofSeconds(10)).until(() -> withoutCert.lastError() != null);
      assertThat(withoutCert.connected()).isFalse();
      assertThat(server.dataPlanes()).containsExactly("dataplane-0");
      withCert.stop().await();
      withoutCert.stop().await();
      server.stop().await();
    } finally {
      vertx.close().await();
    }
  }

  static final SnapshotApplier ACCEPT_ALL =
      new SnapshotApplier() {
        @Override
        public Future<Void> apply(PoolSnapshot snapshot) {
          return Future.succeededFuture();
        }

        @Override
        public Future<Void> remove(String pool, long version) {
          return Future.succeededFuture();
        }
      };

  static boolean hasOpenssl() {
    try {
      return new ProcessBuilder("openssl", "version").start().waitFor() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  static String runScript(Path script) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("sh", script.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("%s: %s", script.getFileName(), out).isZero();
    return out;
  }

  static String decode(String base64) {
    return new String(Base64.getMimeDecoder().decode(base64), StandardCharsets.UTF_8);
  }

  static <T extends HasMetadata> T oneOf(List<HasMetadata> objects, Class<T> type, String name) {
    List<T> found =
        objects.stream()
            .filter(type::isInstance)
            .map(type::cast)
            .filter(o -> name.equals(o.getMetadata().getName()))
            .toList();
    assertThat(found).as("%s %s", type.getSimpleName(), name).hasSize(1);
    return found.get(0);
  }

  static List<String> secretVolumes(Deployment d) {
    return RenderedManifests.template(d).getSpec().getVolumes().stream()
        .filter(v -> v.getSecret() != null)
        .map(v -> v.getSecret().getSecretName())
        .toList();
  }

  /**
   * The container's args with every {@code --flag=/path} under a Secret volume replaced by a local
   * file holding what the kubelet would mount there (the Secret's key, through the volume's items
   * if it lists any): a wrong mount path, item or key fails here.
   */
  static String[] withSecretFiles(
      Deployment d, List<Secret> secrets, Map<String, String> fieldValues) throws IOException {
    PodSpec pod = RenderedManifests.template(d).getSpec();
    Container c = pod.getContainers().get(0);
    Path local = Files.createTempDirectory("replicapool-mounts-");
    List<String> out = new ArrayList<>();
    for (String a : RenderedManifests.expandedArgs(c, fieldValues)) {
      int eq = a.indexOf('=');
      String path = eq < 0 ? "" : a.substring(eq + 1);
      Optional<VolumeMount> mount =
          c.getVolumeMounts().stream()
              .filter(v -> path.startsWith(v.getMountPath() + "/"))
              .findFirst();
      Volume v = mount.map(vm -> volume(pod, vm.getName())).orElse(null);
      if (v == null || v.getSecret() == null) {
        out.add(a);
        continue;
      }
      String file = path.substring(mount.get().getMountPath().length() + 1);
      String key =
          v.getSecret().getItems() == null || v.getSecret().getItems().isEmpty()
              ? file
              : v.getSecret().getItems().stream()
                  .filter(i -> i.getPath().equals(file))
                  .map(i -> i.getKey())
                  .findFirst()
                  .orElseThrow(() -> new AssertionError(v.getName() + " mounts no " + file));
      Secret secret =
          secrets.stream()
              .filter(sec -> sec.getMetadata().getName().equals(v.getSecret().getSecretName()))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no Secret " + v.getSecret().getSecretName()));
      assertThat(secret.getData()).as("Secret %s", secret.getMetadata().getName()).containsKey(key);
      Path copy = local.resolve(v.getName() + "-" + file);
      Files.writeString(copy, decode(secret.getData().get(key)));
      out.add(a.substring(0, eq + 1) + copy);
    }
    return out.toArray(String[]::new);
  }

  // ---------------------------------------------------------------- helpers

  void assertTokenFileIsTheMountedSecret(PodSpec pod, Container c, String tokenFile) {
    assertThat(tokenFile).isEqualTo("/var/run/replicapool/token/token");
    VolumeMount mount =
        c.getVolumeMounts().stream()
            .filter(v -> tokenFile.startsWith(v.getMountPath() + "/"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no volume mounted at " + tokenFile));
    assertThat(mount.getReadOnly()).isTrue();
    Volume v = volume(pod, mount.getName());
    assertThat(v.getSecret()).as("volume %s is a Secret", v.getName()).isNotNull();
    Secret secret = m.one(Secret.class, v.getSecret().getSecretName());
    String file = tokenFile.substring(mount.getMountPath().length() + 1);
    assertThat(v.getSecret().getItems())
        .anySatisfy(
            i -> {
              assertThat(i.getPath()).isEqualTo(file);
              assertThat(secret.getData()).containsKey(i.getKey());
            });
  }

  static Volume volume(PodSpec pod, String name) {
    return pod.getVolumes().stream()
        .filter(v -> v.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no volume " + name));
  }

  static Optional<Integer> portNumber(Container c, IntOrString port) {
    return c.getPorts().stream()
        .filter(
            p ->
                port.getStrVal() != null
                    ? port.getStrVal().equals(p.getName())
                    : Objects.equals(port.getIntVal(), p.getContainerPort()))
        .map(ContainerPort::getContainerPort)
        .findFirst();
  }

  static boolean matches(Map<String, String> selector, Deployment d) {
    Map<String, String> labels = RenderedManifests.template(d).getMetadata().getLabels();
    return selector != null
        && !selector.isEmpty()
        && selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
  }

  static String flagValue(String[] args, String flag) {
    return Stream.of(args)
        .filter(a -> a.startsWith(flag + "="))
        .map(a -> a.substring(flag.length() + 1))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + flag + "=... in " + List.of(args)));
  }

  static <T extends HasMetadata> T copy(T object) {
    @SuppressWarnings("unchecked")
    T copy =
        (T)
            Serialization.unmarshal(
                new java.io.ByteArrayInputStream(
                    Serialization.asYaml(object).getBytes(StandardCharsets.UTF_8)),
                object.getClass());
    return copy;
  }
}
