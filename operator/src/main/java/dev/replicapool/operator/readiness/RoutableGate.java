package dev.replicapool.operator.readiness;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Pod readiness gate {@value #CONDITION_TYPE}: a Pod that lists it in {@code
 * spec.readinessGates} is only Ready once the operator sets that condition True, which it does
 * while a pool routes to the Pod (False otherwise). {@code kubectl rollout} thus waits until the
 * data planes really send traffic to new Pods before it stops old ones (the model is the AWS Load
 * Balancer Controller's target health gate).
 *
 * <p>The condition goes in with a strategic merge patch of {@code pods/status}, which merges {@code
 * status.conditions} by type and so leaves the kubelet's conditions alone.
 */
public final class RoutableGate {
  private static final Logger log = LoggerFactory.getLogger(RoutableGate.class);

  public static final String CONDITION_TYPE = "replicapool.dev/routable";

  private final KubernetesClient client;

  public RoutableGate(KubernetesClient client) {
    this.client = client;
  }

  /** True when the Pod lists the gate in {@code spec.readinessGates}. */
  public static boolean declares(Pod pod) {
    return pod.getSpec() != null
        && pod.getSpec().getReadinessGates() != null
        && pod.getSpec().getReadinessGates().stream()
            .anyMatch(g -> CONDITION_TYPE.equals(g.getConditionType()));
  }

  /** The gate's status as the Pod shows it: "True", "False", or null when not set yet. */
  public static String current(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return null;
    }
    return pod.getStatus().getConditions().stream()
        .filter(c -> CONDITION_TYPE.equals(c.getType()))
        .map(PodCondition::getStatus)
        .findFirst()
        .orElse(null);
  }

  /**
   * Sets the gate of a Pod that declares it to {@code routes.test(pod)}, when it shows something
   * else. A failed patch is logged; the next reconcile tries again.
   *
   * @return true when a patch was sent
   */
  public boolean sync(Pod pod, Predicate<Pod> routes) {
    if (!declares(pod) || pod.getMetadata().getDeletionTimestamp() != null) {
      return false;
    }
    String wanted = routes.test(pod) ? "True" : "False";
    if (wanted.equals(current(pod))) {
      return false;
    }
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    String reason = "True".equals(wanted) ? "PoolRoutes" : "PoolDoesNotRoute";
    String patch =
        "{\"status\":{\"conditions\":[{\"type\":\""
            + CONDITION_TYPE
            + "\",\"status\":\""
            + wanted
            + "\",\"reason\":\""
            + reason
            + "\",\"lastTransitionTime\":\""
            + now
            + "\"}]}}";
    try {
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .subresource("status")
          .patch(PatchContext.of(PatchType.STRATEGIC_MERGE), patch);
      return true;
    } catch (RuntimeException e) {
      log.warn(
          "could not set {} on Pod {}/{}: {}",
          CONDITION_TYPE,
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          e.getMessage());
      return false;
    }
  }
}
