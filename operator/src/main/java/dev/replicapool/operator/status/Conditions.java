package dev.replicapool.operator.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * metav1.Condition handling: a fresh condition keeps its old lastTransitionTime when its status did
 * not change.
 */
public final class Conditions {
  /** A request can reach a routable member: Accepted, ResolvedRefs, Programmed, and a member. */
  public static final String READY = "Ready";

  /** The spec is usable: it has a route. */
  public static final String ACCEPTED = "Accepted";

  /** The TLS Secrets and CA ConfigMaps it refers to exist and are usable. */
  public static final String RESOLVED_REFS = "ResolvedRefs";

  /** At least one data plane of the pool's groups applied its latest snapshot. */
  public static final String PROGRAMMED = "Programmed";

  public static final String DEGRADED = "Degraded";
  public static final String DATA_PLANE_SYNCED = "DataPlaneSynced";
  public static final String CAPACITY_AT_RISK = "CapacityAtRisk";
  public static final String CONFIGURATION_VALID = "ConfigurationValid";

  /**
   * Present, False, only while reconciles of the pool fail: the rest of the status then shows the
   * last reconcile that succeeded. The next one that succeeds drops it.
   */
  public static final String RECONCILED = "Reconciled";

  private Conditions() {}

  public static Condition of(
      String type, boolean status, String reason, String message, long generation, String now) {
    return new ConditionBuilder()
        .withType(type)
        .withStatus(status ? "True" : "False")
        .withReason(reason)
        .withMessage(message)
        .withObservedGeneration(generation)
        .withLastTransitionTime(now)
        .build();
  }

  public static Condition unknown(
      String type, String reason, String message, long generation, String now) {
    Condition c = of(type, false, reason, message, generation, now);
    c.setStatus("Unknown");
    return c;
  }

  /**
   * The fresh conditions, each keeping the lastTransitionTime of its predecessor of the same type
   * when the status is the same: only a real transition moves the timestamp, so an unchanged pool
   * produces an identical status and no write.
   */
  public static List<Condition> carryTransitionTimes(List<Condition> old, List<Condition> fresh) {
    List<Condition> out = new ArrayList<>(fresh.size());
    for (Condition c : fresh) {
      Condition previous = find(old, c.getType());
      if (previous != null && Objects.equals(previous.getStatus(), c.getStatus())) {
        c.setLastTransitionTime(previous.getLastTransitionTime());
      }
      out.add(c);
    }
    return out;
  }

  public static Condition find(List<Condition> conditions, String type) {
    if (conditions == null) {
      return null;
    }
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }
}
