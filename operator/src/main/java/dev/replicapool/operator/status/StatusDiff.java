package dev.replicapool.operator.status;

import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Objects;

/**
 * Tells a change a user must see at once (a count, a member's state, a condition's status or
 * reason, the generation) from drift that can wait for the next periodic refresh (weights,
 * latencies, error rates, lease expiry times, messages that quote them, snapshot versions). Writing
 * every drift would update the status a few times per second per pool.
 */
public final class StatusDiff {
  private StatusDiff() {}

  public static boolean significant(ReplicaPoolStatus fresh, ReplicaPoolStatus stored) {
    if (stored == null) {
      return true;
    }
    return !Objects.equals(fresh.observedGeneration, stored.observedGeneration)
        || !Objects.equals(fresh.registered, stored.registered)
        || !Objects.equals(fresh.routable, stored.routable)
        || !Objects.equals(fresh.capacity, stored.capacity)
        || !sameConditions(fresh.conditions, stored.conditions)
        || !sameMembers(fresh.endpoints, stored.endpoints);
  }

  private static boolean sameConditions(List<Condition> a, List<Condition> b) {
    if (a == null || b == null || a.size() != b.size()) {
      return a == b;
    }
    for (int i = 0; i < a.size(); i++) {
      Condition x = a.get(i);
      Condition y = b.get(i);
      if (!Objects.equals(x.getType(), y.getType())
          || !Objects.equals(x.getStatus(), y.getStatus())
          || !Objects.equals(x.getReason(), y.getReason())
          || !Objects.equals(x.getObservedGeneration(), y.getObservedGeneration())) {
        return false;
      }
    }
    return true;
  }

  private static boolean sameMembers(List<EndpointStatus> a, List<EndpointStatus> b) {
    if (a == null || b == null || a.size() != b.size()) {
      return a == b;
    }
    for (int i = 0; i < a.size(); i++) {
      EndpointStatus x = a.get(i);
      EndpointStatus y = b.get(i);
      if (!Objects.equals(x.address, y.address)
          || x.source != y.source
          || !Objects.equals(x.name, y.name)
          || x.state != y.state
          || (x.weight != null && y.weight != null && (x.weight == 0) != (y.weight == 0))) {
        return false;
      }
    }
    return true;
  }
}
