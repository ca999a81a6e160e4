package dev.replicapool.e2e;

import static dev.replicapool.e2e.RenderedManifests.NAMESPACE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.testing.ApiServerTestBase;
import dev.replicapool.testing.Kubectl;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Component components/network-policy: rendered by the real kubectl with the base, accepted by
 * a real API server (server-side dry run, then applied), and read rule by rule: who may reach which
 * named port of the operator and the data planes. Whether packets are dropped depends on the
 * cluster's network plugin, which an API server alone does not have (see docs/INSTALL.md).
 */
class NetworkPolicyComponentIT extends ApiServerTestBase {
  static final String MONITORING = "replicapool.dev/monitoring";
  static RenderedManifests m;

  @BeforeAll
  static void render() throws Exception {
    String token = RenderedManifests.newToken();
    Path base = RenderedManifests.copyOfBase(token);
    Path overlay =
        RenderedManifests.overlayWithComponent(
            base,
            base.resolve("components").resolve("network-policy"),
            "replicapool-netpol-overlay-");
    m = RenderedManifests.render(kubectl, client, overlay, token);
    m.apply(kubectl, o -> o.getKind().equals("Namespace"));
  }

  @Test
  void theApiServerAcceptsThePoliciesAndTheWholeInstall() {
    Kubectl.Result dryRun = m.serverSideDryRun(kubectl);
    assertThat(dryRun.exitCode()).as(dryRun.output()).isZero();
    assertThat(dryRun.stderr()).doesNotContain("Warning");
    m.apply(kubectl, o -> o.getKind().equals("NetworkPolicy"));
    assertThat(client.network().v1().networkPolicies().inNamespace(NAMESPACE).list().getItems())
        .extracting(p -> p.getMetadata().getName())
        .contains(
            "replicapool-operator-control-plane",
            "replicapool-operator-admin",
            "replicapool-dataplane-admin",
            "replicapool-dataplane-traffic");
  }

  @Test
  void onlyDataPlanesReachTheControlPlaneAndOnlyMonitoringTheAdminPorts() {
    assertThat(allowed("replicapool-operator"))
        .isEqualTo(
            Map.of(
                "control-plane",
                    new TreeSet<>(List.of("pods app.kubernetes.io/name=replicapool-dataplane")),
                "admin", new TreeSet<>(List.of("namespaces " + MONITORING + "=true"))));
    assertThat(allowed("replicapool-dataplane"))
        .isEqualTo(
            Map.of(
                "admin", new TreeSet<>(List.of("namespaces " + MONITORING + "=true")),
                "http", new TreeSet<>(List.of("everywhere")),
                "https", new TreeSet<>(List.of("everywhere"))));
  }

  @Test
  void everyPolicySelectsADeploymentAndNamesPortsItsContainerHas() {
    List<NetworkPolicy> policies = m.all(NetworkPolicy.class);
    assertThat(policies).hasSize(4);
    for (NetworkPolicy p : policies) {
      assertThat(p.getSpec().getPolicyTypes()).containsExactly("Ingress");
      Deployment d = selected(p);
      List<String> names =
          RenderedManifests.template(d).getSpec().getContainers().get(0).getPorts().stream()
              .map(ContainerPort::getName)
              .toList();
      for (NetworkPolicyIngressRule rule : p.getSpec().getIngress()) {
        assertThat(rule.getPorts())
            .as("%s names its ports", p.getMetadata().getName())
            .isNotEmpty()
            .allSatisfy(port -> assertThat(names).contains(port.getPort().getStrVal()));
      }
    }
  }

  /** Named port of the Deployment's Pods to the sources every policy selecting them allows. */
  static Map<String, TreeSet<String>> allowed(String deployment) {
    Map<String, TreeSet<String>> allowed = new TreeMap<>();
    for (NetworkPolicy p : m.all(NetworkPolicy.class)) {
      if (!selected(p).getMetadata().getName().equals(deployment)) {
        continue;
      }
      for (NetworkPolicyIngressRule rule : p.getSpec().getIngress()) {
        for (NetworkPolicyPort port : rule.getPorts()) {
          TreeSet<String> sources =
              allowed.computeIfAbsent(port.getPort().getStrVal(), k -> new TreeSet<>());
          if (rule.getFrom() == null || rule.getFrom().isEmpty()) {
            sources.add("everywhere");
          }
          for (NetworkPolicyPeer peer :
              rule.getFrom() == null ? List.<NetworkPolicyPeer>of() : rule.getFrom()) {
            assertThat(peer.getIpBlock()).isNull();
            if (peer.getNamespaceSelector() != null) {
              assertThat(peer.getPodSelector()).isNull();
              sources.add("namespaces " + labels(peer.getNamespaceSelector().getMatchLabels()));
            } else {
              sources.add("pods " + labels(peer.getPodSelector().getMatchLabels()));
            }
          }
        }
      }
    }
    return allowed;
  }

  static String labels(Map<String, String> labels) {
    return String.join(
        ",",
        new TreeMap<>(labels)
            .entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
  }

  /** The one Deployment whose Pods the policy selects. */
  static Deployment selected(NetworkPolicy p) {
    Map<String, String> selector = p.getSpec().getPodSelector().getMatchLabels();
    List<Deployment> matches =
        m.all(Deployment.class).stream()
            .filter(
                d ->
                    RenderedManifests.template(d)
                        .getMetadata()
                        .getLabels()
                        .entrySet()
                        .containsAll(selector.entrySet()))
            .toList();
    assertThat(matches).as("Deployments selected by %s", p.getMetadata().getName()).hasSize(1);
    return matches.get(0);
  }
}
