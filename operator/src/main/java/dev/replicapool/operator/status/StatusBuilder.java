package dev.replicapool.operator.status;

import dev.replicapool.api.v1alpha1.EndpointStatus;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;
import dev.replicapool.operator.discovery.Member;
import dev.replicapool.operator.health.CapacityPlanner;
import dev.replicapool.operator.health.HealthPolicy;
import dev.replicapool.operator.health.HealthSnapshot;
import dev.replicapool.operator.health.WeightPolicy;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Builds a pool's status fresh from what was observed. Pure: the same observations give an equal
 * status, so the reconciler can skip the write when nothing changed.
 */
public final class StatusBuilder {
  private StatusBuilder() {}

  /** One member with its health. */
  public record Row(Member member, HealthSnapshot health) {}

  /**
   * How the data planes stand for this pool.
   *
   * @param total data planes connected
   * @param atLatest data planes that applied {@code version}
   * @param nacks reasons of data planes that refused it
   * @param convergedVersion the last version every data plane applied, counted from the change that
   *     made it (0: none yet)
   * @param convergenceMillis from the change the operator saw to the last of those ACKs (the last
   *     observation of {@code replicapool_push_convergence_seconds}); meaningless without a
   *     converged version
   */
  public record DataPlaneSync(
      int total,
      int atLatest,
      long version,
      List<String> nacks,
      long convergedVersion,
      double convergenceMillis) {

    public DataPlaneSync(int total, int atLatest, long version, List<String> nacks) {
      this(total, atLatest, version, nacks, 0, 0);
    }

    /**
     * "; version 7 reached every data plane 12 ms after the change", empty before one did. Only
     * figures differ between two of them, so a new one alone is drift for {@link StatusDiff}.
     */
    String convergence() {
      if (convergedVersion <= 0) {
        return "";
      }
      String ms =
          convergenceMillis < 10
              ? String.format(Locale.ROOT, "%.1f", convergenceMillis)
              : String.valueOf(Math.round(convergenceMillis));
      return "; version "
          + convergedVersion
          + " reached every data plane "
          + ms
          + " ms after the change";
    }
  }

  /**
   * Everything a status is made of.
   *
   * @param configurationProblems every part of the configuration that cannot be used
   * @param unresolvedRefs those of them that are referenced Secrets and ConfigMaps
   */
  public record Observation(
      ReplicaPool pool,
      HealthPolicy policy,
      List<Row> rows,
      List<String> configurationProblems,
      List<String> unresolvedRefs,
      String noMembersReason,
      DataPlaneSync sync,
      long snapshotVersion,
      Instant now) {}

  public static ReplicaPoolStatus build(Observation o) {
    ReplicaPool pool = o.pool();
    long generation =
        pool.getMetadata().getGeneration() == null ? 0 : pool.getMetadata().getGeneration();
    String now = o.now().toString();
    ReplicaPoolStatus status = new ReplicaPoolStatus();
    status.observedGeneration = generation;
    status.snapshotVersion = o.snapshotVersion() == 0 ? null : o.snapshotVersion();

    int registered = o.rows().size();
    int routable = (int) o.rows().stream().filter(r -> r.health().routable()).count();
    status.registered = registered;
    status.routable = routable;
    status.degraded =
        (int)
            o.rows().stream()
                .filter(r -> r.health().routable() && r.health().state() == MemberState.Degraded)
                .count();
    o.rows().forEach(r -> status.endpoints.add(endpoint(r)));

    List<Condition> conditions = new ArrayList<>();
    conditions.addAll(
        Readiness.conditions(o, o.unresolvedRefs(), registered, routable, generation, now));
    conditions.add(degraded(o, generation, now));
    conditions.add(synced(o, generation, now));
    if (pool.getSpec().capacity != null) {
      conditions.add(capacity(o, status, generation, now));
    }
    conditions.add(configurationValid(o, generation, now));
    List<Condition> old = pool.getStatus() == null ? List.of() : pool.getStatus().conditions;
    status.conditions = Conditions.carryTransitionTimes(old, conditions);
    return status;
  }

  private static EndpointStatus endpoint(Row r) {
    EndpointStatus row = new EndpointStatus();
    row.address = r.member().address();
    row.source = r.member().source();
    row.name = r.member().name();
    r.health().applyTo(row);
    row.weight = WeightPolicy.round(row.weight);
    if (r.member().leaseExpiresAtMillis() != null) {
      // Second precision: a renewal every few hundred ms must not rewrite the status each time.
      row.leaseExpiresAt =
          Instant.ofEpochMilli(r.member().leaseExpiresAtMillis())
              .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
              .toString();
    }
    return row;
  }

  /**
   * The routable members' mean last reported utilization (fresh reports only, as their status rows
   * show it; {@code rows} are the status rows of {@code o}'s rows, in order); null when any
   * routable member has none.
   */
  private static Double reportedUtilization(Observation o, List<EndpointStatus> rows) {
    double sum = 0;
    int n = 0;
    for (int i = 0; i < rows.size(); i++) {
      if (!o.rows().get(i).health().routable()) {
        continue;
      }
      EndpointStatus row = rows.get(i);
      if (row.utilization == null) {
        return null;
      }
      sum += row.utilization;
      n++;
    }
    return n == 0 ? null : sum / n;
  }

  /** Sets the capacity figures; returns the CapacityAtRisk condition. */
  private static Condition capacity(
      Observation o, ReplicaPoolStatus status, long generation, String now) {
    var plan =
        CapacityPlanner.plan(
            o.pool().getSpec().capacity,
            status.routable,
            status.registered,
            o.policy().activeChecks() ? o.policy().intervalMillis() : 0,
            o.policy().detectionMillis(),
            reportedUtilization(o, status.endpoints));
    status.capacity = plan.status();
    return Conditions.of(
        Conditions.CAPACITY_AT_RISK,
        plan.atRisk(),
        plan.atRisk() ? "OneFailureAboveTarget" : "OneFailureWithinTarget",
        plan.message(),
        generation,
        now);
  }

  private static Condition configurationValid(Observation o, long generation, String now) {
    if (o.configurationProblems().isEmpty()) {
      return Conditions.of(
          Conditions.CONFIGURATION_VALID,
          true,
          "Valid",
          "the operator can use this configuration",
          generation,
          now);
    }
    return Conditions.of(
        Conditions.CONFIGURATION_VALID,
        false,
        "Invalid",
        String.join("; ", o.configurationProblems()),
        generation,
        now);
  }

  /**
   * The panic message when fewer than {@code routing.panicThresholdPercent} of the registered
   * members are routable, so that the data planes route to all of them; null otherwise. Members
   * draining or still Pending do not count: one is leaving, the other never answered. The data
   * planes decide the same from their own view of the pool.
   */
  public static String panic(ReplicaPool pool, List<Row> rows) {
    var routing = pool.getSpec().routing;
    int threshold =
        routing == null || routing.panicThresholdPercent == null
            ? 0
            : routing.panicThresholdPercent;
    List<Row> registered =
        rows.stream()
            .filter(r -> r.health().state() != MemberState.Draining)
            .filter(r -> r.health().state() != MemberState.Pending)
            .toList();
    long routable = registered.stream().filter(r -> r.health().routable()).count();
    if (threshold <= 0
        || registered.isEmpty()
        || routable * 100 >= (long) threshold * registered.size()) {
      return null;
    }
    return routable
        + " of "
        + registered.size()
        + " members routable, below "
        + threshold
        + " %: routing to all";
  }

  /** How a member's reason starts when saturation made it Degraded (see ProbeSignals). */
  static final String SATURATED_PREFIX = "saturated:";

  private static Condition degraded(Observation o, long generation, String now) {
    String panic = panic(o.pool(), o.rows());
    // Pending members are starting, not sick: the Ready condition counts them.
    List<Row> sick =
        o.rows().stream()
            .filter(r -> r.health().state() != MemberState.Healthy)
            .filter(r -> r.health().state() != MemberState.Pending)
            .toList();
    if (sick.isEmpty() && panic == null) {
      return Conditions.of(
          Conditions.DEGRADED,
          false,
          "AllEndpointsHealthy",
          "all members healthy",
          generation,
          now);
    }
    boolean anyUnhealthy = sick.stream().anyMatch(r -> r.health().state() == MemberState.Unhealthy);
    String message = sick.stream().map(StatusBuilder::describe).collect(Collectors.joining("; "));
    if (panic != null) {
      return Conditions.of(
          Conditions.DEGRADED,
          true,
          "Panic",
          message.isEmpty() ? panic : panic + "; " + message,
          generation,
          now);
    }
    // Saturation gets its own reason (the DEGRADED-REASON column) when it is all there is.
    boolean allSaturated =
        sick.stream()
            .allMatch(
                r ->
                    r.health().state() == MemberState.Degraded
                        && r.health().reason() != null
                        && r.health().reason().startsWith(SATURATED_PREFIX));
    return Conditions.of(
        Conditions.DEGRADED,
        true,
        anyUnhealthy
            ? "EndpointUnhealthy"
            : allSaturated ? "EndpointSaturated" : "EndpointDegraded",
        message,
        generation,
        now);
  }

  /** "10.0.0.2:8080 Unhealthy: 3 probes failed" */
  private static String describe(Row r) {
    return r.member().address()
        + " "
        + r.health().state()
        + (r.health().reason() == null ? "" : ": " + r.health().reason());
  }

  private static Condition synced(Observation o, long generation, String now) {
    DataPlaneSync s = o.sync();
    if (s == null || s.total() == 0) {
      return Conditions.unknown(
          Conditions.DATA_PLANE_SYNCED,
          "NoDataPlanes",
          Readiness.noDataPlaneMessage(o.pool()),
          generation,
          now);
    }
    if (!s.nacks().isEmpty()) {
      return Conditions.of(
          Conditions.DATA_PLANE_SYNCED,
          false,
          "Rejected",
          s.nacks().size()
              + " of "
              + s.total()
              + " data planes rejected version "
              + s.version()
              + ": "
              + String.join("; ", s.nacks())
              + " (sent again until it applies)",
          generation,
          now);
    }
    boolean all = s.atLatest() == s.total();
    return Conditions.of(
        Conditions.DATA_PLANE_SYNCED,
        all,
        all ? "Applied" : "Pending",
        s.atLatest()
            + "/"
            + s.total()
            + " data planes applied version "
            + s.version()
            + s.convergence(),
        generation,
        now);
  }
}
