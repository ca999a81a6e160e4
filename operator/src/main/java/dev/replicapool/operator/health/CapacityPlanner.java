package dev.replicapool.operator.health;

import dev.replicapool.api.v1alpha1.Capacity;
import dev.replicapool.api.v1alpha1.CapacityStatus;

/**
 * Capacity arithmetic of a pool (S1 in docs/SCENARIOS.md works it through): pure functions of the
 * spec's capacity inputs and the members the operator sees, and of the utilization the members
 * report, where they do: the plan says what the peak would do, the reports what the load does now,
 * and either one can put the pool at risk. Rates are rounded to two decimals, utilizations to
 * three, half-up on the exact binary value (513.89 / 2 is 256.9449... as a double, so 256.94).
 */
public final class CapacityPlanner {
  private static final double EPSILON = 1e-9;

  private CapacityPlanner() {}

  /**
   * The figures, whether one more member failure puts the pool above its target utilization, and a
   * message that says so with the number.
   */
  public record Plan(CapacityStatus status, boolean atRisk, String message) {}

  /** {@link #plan(Capacity, int, int, long, long, Double)} with every routable member probed. */
  public static Plan plan(
      Capacity capacity, int routableMembers, long probeIntervalMillis, long detectionMillis) {
    return plan(
        capacity, routableMembers, routableMembers, probeIntervalMillis, detectionMillis, null);
  }

  /**
   * @param routableMembers members that get traffic now; 0 counts the minimum replicas instead for
   *     the per-replica figures (and is at risk)
   * @param probedMembers members the health check probes (its cost is probed / interval)
   * @param probeIntervalMillis health check interval; 0 or less when active checks are off
   * @param detectionMillis time from a member's failure to its ejection, e.g. {@link
   *     HealthPolicy#detectionMillis()}
   * @param reportedUtilization the routable members' mean reported utilization; null when not every
   *     one of them reports
   */
  public static Plan plan(
      Capacity capacity,
      int routableMembers,
      int probedMembers,
      long probeIntervalMillis,
      long detectionMillis,
      Double reportedUtilization) {
    if (capacity == null) {
      throw new IllegalArgumentException("capacity is required");
    }
    double peak = capacity.peakRequestsPerSecond == null ? 0.0 : capacity.peakRequestsPerSecond;
    double perReplica =
        capacity.perReplicaRequestsPerSecond == null ? 0.0 : capacity.perReplicaRequestsPerSecond;
    double target = capacity.targetUtilization == null ? 0.5 : capacity.targetUtilization;
    CapacityStatus s = new CapacityStatus();
    if (perReplica <= 0 || target <= 0 || peak < 0) {
      return new Plan(
          s,
          true,
          "cannot plan: perReplicaRequestsPerSecond and targetUtilization must be above 0");
    }
    Figures f =
        figures(peak, perReplica, target, routableMembers, probedMembers, probeIntervalMillis, s);
    s.droppedRequestsPerFailure =
        Fmt.round(f.perMember() * Math.max(0, detectionMillis) / 1000.0, 2);
    Plan planned = judge(s, f, peak, target, routableMembers);
    if (reportedUtilization == null || routableMembers <= 0) {
      return planned;
    }
    Double after = reported(s, reportedUtilization, routableMembers);
    return planned.atRisk()
        ? planned // the plan's own risk is said first; the reported figures are still shown
        : judgeReported(s, planned, reportedUtilization, after, target, routableMembers);
  }

  /** Fills the reported figures; returns the utilization after one more failure, null if none. */
  private static Double reported(CapacityStatus s, double reported, int routableMembers) {
    s.reportedUtilization = Fmt.round(reported, 3);
    if (routableMembers < 2) {
      return null;
    }
    double after = reported * routableMembers / (routableMembers - 1);
    s.reportedUtilizationAfterOneFailure = Fmt.round(after, 3);
    return after;
  }

  /**
   * The plan holds at peak: whether what the members report now holds too (load can pass the plan,
   * or the plan's per-replica rate can be wrong). {@code after}: the reported utilization after one
   * more failure, null when none would be left.
   */
  private static Plan judgeReported(
      CapacityStatus s,
      Plan planned,
      double reported,
      Double after,
      double target,
      int routableMembers) {
    String t = Fmt.num(target);
    if (reported > target + EPSILON) {
      return new Plan(
          s,
          true,
          "reported utilization "
              + Fmt.num(s.reportedUtilization)
              + " > "
              + t
              + " already with "
              + routableMembers
              + " routable");
    }
    if (after != null && after > target + EPSILON) {
      return new Plan(
          s,
          true,
          "one more failure puts reported utilization at "
              + Fmt.num(s.reportedUtilizationAfterOneFailure)
              + " > "
              + t);
    }
    return new Plan(
        s,
        false,
        planned.message()
            + "; reported utilization "
            + Fmt.num(s.reportedUtilization)
            + (after == null
                ? ""
                : ", " + Fmt.num(s.reportedUtilizationAfterOneFailure) + " after one failure"));
  }

  /**
   * The unrounded figures the judgement compares, beside the rounded ones in the status.
   *
   * @param utilizationAfter null when no member would be left after one more failure
   */
  private record Figures(double perMember, double utilization, Double utilizationAfter) {}

  /** Fills the status's figures: replicas needed, per-replica load now and after one failure. */
  private static Figures figures(
      double peak,
      double perReplica,
      double target,
      int routableMembers,
      int probedMembers,
      long probeIntervalMillis,
      CapacityStatus s) {
    double safe = perReplica * target;
    int minReplicas = (int) Math.max(1, Math.ceil(peak / safe - EPSILON));
    int counted = routableMembers > 0 ? routableMembers : minReplicas;
    double perMember = peak / counted;
    double utilization = perMember / perReplica;

    s.minReplicas = minReplicas;
    s.safeRequestsPerSecondPerReplica = Fmt.round(safe, 2);
    s.perReplicaRequestsPerSecond = Fmt.round(perMember, 2);
    s.utilization = Fmt.round(utilization, 3);
    Double utilizationAfter = null;
    if (counted > 1) {
      double after = peak / (counted - 1);
      utilizationAfter = after / perReplica;
      s.perReplicaRequestsPerSecondAfterOneFailure = Fmt.round(after, 2);
      s.utilizationAfterOneFailure = Fmt.round(utilizationAfter, 3);
    }
    s.healthCheckRequestsPerSecond =
        probeIntervalMillis > 0
            ? Fmt.round(Math.max(0, probedMembers) * 1000.0 / probeIntervalMillis, 2)
            : 0.0;
    return new Figures(perMember, utilization, utilizationAfter);
  }

  /** Whether the pool is at risk now or after one more failure, and the message that says so. */
  private static Plan judge(
      CapacityStatus s, Figures f, double peak, double target, int routableMembers) {
    String t = Fmt.num(target);
    if (routableMembers <= 0) {
      return new Plan(s, true, "no routable member; " + s.minReplicas + " needed at peak");
    }
    if (f.utilization() > target + EPSILON) {
      return new Plan(
          s,
          true,
          "utilization "
              + Fmt.num(s.utilization)
              + " > "
              + t
              + " already with "
              + routableMembers
              + " routable; "
              + s.minReplicas
              + " needed at peak");
    }
    if (f.utilizationAfter() == null) {
      return new Plan(s, peak > 0, "one more failure leaves no routable member");
    }
    String after = Fmt.num(s.utilizationAfterOneFailure);
    if (f.utilizationAfter() > target + EPSILON) {
      return new Plan(s, true, "one more failure puts utilization at " + after + " > " + t);
    }
    return new Plan(s, false, "one more failure keeps utilization at " + after + " <= " + t);
  }
}
