package dev.replicapool.operator.reconciler;

import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.operator.discovery.LabelSelectors;
import dev.replicapool.operator.discovery.LeaseTracker;
import dev.replicapool.operator.discovery.LeaseWatch;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.javaoperatorsdk.operator.api.config.informer.FieldSelector;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * {@link PoolInputs} from JOSDK informers, one per kind, whose events map back to the pools that
 * use the object: a Pod to the pools whose selector matches it, a Lease to the pool it names, a
 * Secret or ConfigMap to the pools that refer to it by name. The Pod and Lease mappers also note
 * when each pool's earliest unreconciled member event was seen ({@link #takeChangeSeen}).
 */
final class InformerInputs implements PoolInputs {
  /**
   * Per pool, when its earliest Pod or Lease event since its last reconcile was seen (nanoTime).
   */
  private final Map<ResourceID, Long> changeSeen = new ConcurrentHashMap<>();

  private InformerEventSource<Pod, ReplicaPool> pods;
  private LeaseEventSource leases;
  private InformerEventSource<Secret, ReplicaPool> secrets;
  private InformerEventSource<ConfigMap, ReplicaPool> configMaps;

  @Override
  public List<EventSource<?, ReplicaPool>> eventSources(
      EventSourceContext<ReplicaPool> context,
      LeaseTracker leaseTracker,
      LeaseWatch leaseWatch,
      Clock clock) {
    pods =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Pod.class, ReplicaPool.class)
                .withName("pods")
                .withSecondaryToPrimaryMapper(pod -> seen(poolsSelecting(context, pod)))
                .build(),
            context);
    leases = new LeaseEventSource(context, leaseTracker, leaseWatch, clock, this::seen);
    secrets =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Secret.class, ReplicaPool.class)
                .withName("tls-secrets")
                // Only TLS Secrets: the operator has no business caching any other kind.
                .withFieldSelector(
                    new FieldSelector(new FieldSelector.Field("type", "kubernetes.io/tls")))
                .withSecondaryToPrimaryMapper(secret -> poolsUsingSecret(context, secret))
                .build(),
            context);
    // CA bundles for spec.upstreamTls.ca.configMapName (a CA certificate is public).
    configMaps =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(ConfigMap.class, ReplicaPool.class)
                .withName("ca-configmaps")
                .withSecondaryToPrimaryMapper(cm -> poolsUsingConfigMap(context, cm))
                .build(),
            context);
    return List.of(pods, leases, secrets, configMaps);
  }

  @Override
  public long takeChangeSeen(ResourceID pool, long none) {
    Long seen = changeSeen.remove(pool);
    return seen == null ? none : seen;
  }

  /** Notes that an event for these pools was seen now; returns them. */
  private Set<ResourceID> seen(Set<ResourceID> pools) {
    long now = System.nanoTime();
    pools.forEach(id -> changeSeen.merge(id, now, Math::min));
    return pools;
  }

  @Override
  public List<Pod> pods(String namespace) {
    return pods.list(namespace, p -> true).toList();
  }

  @Override
  public List<Lease> leases(String namespace, String pool) {
    return leases
        .list(
            namespace,
            l -> pool.equals(l.getMetadata().getLabels().get(LeaseConventions.POOL_LABEL)))
        .toList();
  }

  @Override
  public Secret tlsSecret(String namespace, String name) {
    return secrets.get(new ResourceID(name, namespace)).orElse(null);
  }

  @Override
  public ConfigMap configMap(String namespace, String name) {
    return configMaps.get(new ResourceID(name, namespace)).orElse(null);
  }

  private static Set<ResourceID> poolsSelecting(EventSourceContext<ReplicaPool> ctx, Pod pod) {
    return ctx.getPrimaryCache()
        .list(pod.getMetadata().getNamespace())
        .filter(p -> p.getSpec() != null && p.getSpec().selector != null)
        .filter(p -> LabelSelectors.matches(p.getSpec().selector, pod.getMetadata().getLabels()))
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }

  private static Set<ResourceID> poolsUsingSecret(
      EventSourceContext<ReplicaPool> ctx, Secret secret) {
    return ctx.getPrimaryCache()
        .list(secret.getMetadata().getNamespace())
        .filter(p -> p.getSpec() != null && usesSecret(p, secret.getMetadata().getName()))
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }

  private static boolean usesSecret(ReplicaPool pool, String name) {
    var spec = pool.getSpec();
    var u = spec.upstreamTls;
    return (spec.tls != null && name.equals(spec.tls.secretName))
        || (u != null && name.equals(u.clientCertificateSecretName))
        || (u != null && u.ca != null && name.equals(u.ca.secretName));
  }

  private static Set<ResourceID> poolsUsingConfigMap(
      EventSourceContext<ReplicaPool> ctx, ConfigMap cm) {
    String name = cm.getMetadata().getName();
    return ctx.getPrimaryCache()
        .list(cm.getMetadata().getNamespace())
        .filter(p -> p.getSpec() != null && p.getSpec().upstreamTls != null)
        .filter(p -> p.getSpec().upstreamTls.ca != null)
        .filter(p -> name.equals(p.getSpec().upstreamTls.ca.configMapName))
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }
}
