package dev.replicapool.crds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.testing.Kubectl;
import java.util.Locale;

/**
 * Applies a ReplicaPool that the API server must refuse, the way a user would ({@code kubectl apply
 * -f -}), and checks that kubectl failed and that no pool of that name exists. The caller checks
 * the field and the reason in what kubectl printed.
 */
final class RefusedPool {
  private RefusedPool() {}

  /**
   * @param description the case, also made into the pool's name
   * @param spec the pool's spec, its lines indented by two spaces after the first
   * @return kubectl's result, whose stderr names the field and the reason
   */
  static Kubectl.Result apply(Kubectl kubectl, String namespace, String description, String spec) {
    String name =
        description.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
    String yaml =
        """
        apiVersion: replicapool.dev/v1alpha1
        kind: ReplicaPool
        metadata: {name: %s, namespace: %s}
        spec:
          %s
        """
            .formatted(name, namespace, spec);
    Kubectl.Result apply = kubectl.runWithInput(yaml, "apply", "-f", "-");
    assertThat(apply.exitCode()).as("kubectl accepted: %s", apply.output()).isNotZero();
    Kubectl.Result get = kubectl.run("get", "rp", name, "-n", namespace);
    assertThat(get.exitCode()).as("a refused pool must not exist").isNotZero();
    return apply;
  }
}
