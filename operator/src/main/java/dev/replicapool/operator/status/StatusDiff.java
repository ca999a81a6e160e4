package dev.replicapool.operator.status;

import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How much a fresh status differs from the stored one, so that {@code kubectl get rp -w} shows
 * changes, not a heartbeat: what a user must see at once (a count, a member's state, a condition's
 * status or reason, the generation), what a user reads and may wait a few seconds for (a message's
 * words, a weight, the snapshot version that tells whether an edit reached the data planes), and
 * figures that drift all the time (latencies, error rates, lease expiry times, the numbers inside a
 * message).
 */
public final class StatusDiff {
  /** Ordered by urgency. */
  public enum Change {
    NONE,
    DRIFT,
    NOTABLE,
    SIGNIFICANT
  }

  private static final Pattern FIGURES = Pattern.compile("[0-9]+(\\.[0-9]+)?");

  private StatusDiff() {}

  public static Change classify(ReplicaPoolStatus fresh, ReplicaPoolStatus stored) {
    if (stored == null) {
      return Change.SIGNIFICANT;
    }
    if (fresh.equals(stored)) {
      return Change.NONE;
    }
    if (!Objects.equals(fresh.observedGeneration, stored.observedGeneration)
        || !Objects.equals(fresh.registered, stored.registered)
        || !Objects.equals(fresh.routable, stored.routable)
        || !Objects.equals(fresh.degraded, stored.degraded)
        || !Objects.equals(fresh.capacity, stored.capacity)
        || !sameConditions(fresh.conditions, stored.conditions)
        || !sameMembers(fresh.endpoints, stored.endpoints)) {
      return Change.SIGNIFICANT;
    }
    if (!Objects.equals(fresh.snapshotVersion, stored.snapshotVersion)
        || !sameConditionWords(fresh.conditions, stored.conditions)
        || !sameNotableMemberDetails(fresh.endpoints, stored.endpoints)) {
      return Change.NOTABLE;
    }
    return Change.DRIFT;
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

  /** Called once the lists match by type: compares the words of their messages. */
  private static boolean sameConditionWords(List<Condition> a, List<Condition> b) {
    for (int i = 0; i < a.size(); i++) {
      if (!sameWords(a.get(i).getMessage(), b.get(i).getMessage())) {
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

  /** Called once the lists match by member: a message's words, a weight (shown to 0.01). */
  private static boolean sameNotableMemberDetails(List<EndpointStatus> a, List<EndpointStatus> b) {
    for (int i = 0; i < a.size(); i++) {
      EndpointStatus x = a.get(i);
      EndpointStatus y = b.get(i);
      if (!sameWords(x.message, y.message)
          || (x.weight != null && y.weight != null && Math.abs(x.weight - y.weight) >= 0.005)) {
        return false;
      }
    }
    return true;
  }

  /** Two texts that differ at most in their figures ("2 probes failed" and "3 probes failed"). */
  private static boolean sameWords(String a, String b) {
    if (a == null || b == null) {
      return a == b;
    }
    return FIGURES.matcher(a).replaceAll("#").equals(FIGURES.matcher(b).replaceAll("#"));
  }
}
