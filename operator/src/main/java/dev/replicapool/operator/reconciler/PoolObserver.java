package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.wire.TlsMaterial;
import dev.replicapool.api.wire.UpstreamTlsMaterial;
import dev.replicapool.operator.discovery.LabelSelectors;
import dev.replicapool.operator.discovery.Member;
import dev.replicapool.operator.discovery.MemberDiscovery;
import dev.replicapool.operator.probing.ProbeSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.util.ArrayList;
import java.util.List;

/**
 * The first phase of a reconcile: reads what the pool refers to (Pods, Leases, TLS Secrets, CA
 * ConfigMaps) and turns it into members, TLS material and the probe settings. Changes nothing.
 */
final class PoolObserver {
  /**
   * What a reconcile observed of one pool.
   *
   * @param pods the Pods of the namespace when the pool has a selector, else none
   * @param leases the pool's registration Leases when it has registration, else none
   * @param problems what makes the configuration unusable in part (ConfigurationValid False)
   * @param unresolvedRefs those problems that are TLS Secrets or CA ConfigMaps the pool refers to
   *     (ResolvedRefs False)
   * @param noMembersReason why the pool has no member, when a selector matches no Pod; else null
   */
  record Observed(
      List<Pod> pods,
      List<Lease> leases,
      List<Member> members,
      TlsMaterial tls,
      UpstreamTlsMaterial upstreamTls,
      ProbeSpec probeSpec,
      List<String> problems,
      List<String> unresolvedRefs,
      String noMembersReason) {}

  private final PoolInputs inputs;
  private final MemberDiscovery discovery;

  PoolObserver(PoolInputs inputs, MemberDiscovery discovery) {
    this.inputs = inputs;
    this.discovery = discovery;
  }

  Observed observe(ReplicaPool pool, long nowMillis) {
    ReplicaPoolSpec spec = pool.getSpec();
    String namespace = pool.getMetadata().getNamespace();
    List<Pod> pods = spec.selector == null ? List.of() : inputs.pods(namespace);
    List<Lease> leases = leases(pool);
    MemberDiscovery.Result found = discovery.discover(pool, pods, leases, nowMillis);

    List<String> refs = new ArrayList<>();
    TlsMaterial tls =
        spec.tls == null
            ? null
            : TlsSecretReader.keyPair(
                "TLS Secret",
                spec.tls.secretName,
                inputs.tlsSecret(namespace, spec.tls.secretName),
                refs);
    UpstreamTlsMaterial upstreamTls =
        UpstreamTlsSource.resolve(
            spec,
            name -> inputs.tlsSecret(namespace, name),
            name -> inputs.configMap(namespace, name),
            refs);
    List<String> problems = new ArrayList<>(found.problems());
    problems.addAll(refs);
    return new Observed(
        pods,
        leases,
        found.members(),
        tls,
        upstreamTls,
        ProbeSpec.from(spec, upstreamTls),
        List.copyOf(problems),
        List.copyOf(refs),
        noMembersReason(spec, found));
  }

  /** The pool's registration Leases as cached; none when it has no registration. */
  List<Lease> leases(ReplicaPool pool) {
    return pool.getSpec().registration == null
        ? List.of()
        : inputs.leases(pool.getMetadata().getNamespace(), pool.getMetadata().getName());
  }

  private static String noMembersReason(ReplicaPoolSpec spec, MemberDiscovery.Result found) {
    if (found.members().isEmpty() && spec.selector != null && found.selectedPods() == 0) {
      return "selector " + LabelSelectors.describe(spec.selector) + " matches no Pods";
    }
    return null;
  }
}
