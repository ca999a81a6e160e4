package dev.replicapool.operator.status;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.Route;
import dev.replicapool.api.wire.ControlPlaneProtocol;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * Whether a request can reach the pool, in the Kubernetes and Gateway API manner: {@code Accepted}
 * (its spec is usable: it has a route), {@code ResolvedRefs} (its TLS Secrets and CA ConfigMaps
 * were found and usable), {@code Programmed} (at least one data plane of its groups applied its
 * latest snapshot), and {@code Ready}, True only when all three are and a member is routable. A
 * False Ready carries the reason of the first of them that is not True, so {@code kubectl wait
 * --for=condition=Ready} never succeeds for a pool no request can reach. Pure.
 */
final class Readiness {
  static final String NO_ROUTE = "NoRoute";
  static final String INVALID_CERTIFICATE_REF = "InvalidCertificateRef";
  static final String NO_DATA_PLANES = "NoDataPlanes";
  static final String REJECTED = "Rejected";
  static final String PENDING = "Pending";

  private Readiness() {}

  /**
   * Ready, Accepted, ResolvedRefs, Programmed, in that order.
   *
   * @param unresolvedRefs why referenced Secrets or ConfigMaps cannot be used; empty when all can
   */
  static List<Condition> conditions(
      StatusBuilder.Observation o,
      List<String> unresolvedRefs,
      int registered,
      int routable,
      long generation,
      String now) {
    Condition accepted = accepted(o.pool(), generation, now);
    Condition refs = resolvedRefs(unresolvedRefs, generation, now);
    Condition programmed = programmed(o.pool(), o.sync(), generation, now);
    Condition ready =
        ready(o, List.of(accepted, refs, programmed), registered, routable, generation, now);
    return List.of(ready, accepted, refs, programmed);
  }

  static Condition accepted(ReplicaPool pool, long generation, String now) {
    Route route = pool.getSpec().route;
    boolean hosts = route != null && route.hosts != null && !route.hosts.isEmpty();
    boolean port = route != null && route.port != null;
    if (!hosts && !port) {
      return Conditions.of(
          Conditions.ACCEPTED,
          false,
          NO_ROUTE,
          "neither spec.route.hosts nor spec.route.port is set, so no request can reach the pool:"
              + " set the Host names it answers on the data planes' traffic port, or a port of"
              + " its own",
          generation,
          now);
    }
    String by =
        hosts && port
            ? "hosts " + String.join(", ", route.hosts) + " and port " + route.port
            : hosts ? "hosts " + String.join(", ", route.hosts) : "port " + route.port;
    return Conditions.of(Conditions.ACCEPTED, true, "Accepted", "routed by " + by, generation, now);
  }

  static Condition resolvedRefs(List<String> unresolved, long generation, String now) {
    if (unresolved.isEmpty()) {
      return Conditions.of(
          Conditions.RESOLVED_REFS,
          true,
          "ResolvedRefs",
          "every referenced Secret and ConfigMap is usable",
          generation,
          now);
    }
    return Conditions.of(
        Conditions.RESOLVED_REFS,
        false,
        INVALID_CERTIFICATE_REF,
        String.join("; ", unresolved),
        generation,
        now);
  }

  /** True when at least one data plane of the pool's groups applied its latest version. */
  static Condition programmed(
      ReplicaPool pool, StatusBuilder.DataPlaneSync s, long generation, String now) {
    if (s == null || s.total() == 0) {
      return Conditions.of(
          Conditions.PROGRAMMED, false, NO_DATA_PLANES, noDataPlaneMessage(pool), generation, now);
    }
    String refusals =
        s.nacks().isEmpty()
            ? ""
            : s.nacks().size() + " rejected it: " + String.join("; ", s.nacks());
    if (s.atLatest() > 0) {
      return Conditions.of(
          Conditions.PROGRAMMED,
          true,
          "Programmed",
          s.atLatest()
              + " of "
              + s.total()
              + " data planes applied version "
              + s.version()
              + (refusals.isEmpty() ? "" : "; " + refusals),
          generation,
          now);
    }
    if (!refusals.isEmpty()) {
      return Conditions.of(
          Conditions.PROGRAMMED,
          false,
          REJECTED,
          "no data plane applied version "
              + s.version()
              + "; "
              + refusals
              + " (sent again until it applies)",
          generation,
          now);
    }
    return Conditions.of(
        Conditions.PROGRAMMED,
        false,
        PENDING,
        "none of " + s.total() + " data planes has applied version " + s.version() + " yet",
        generation,
        now);
  }

  private static Condition ready(
      StatusBuilder.Observation o,
      List<Condition> prerequisites,
      int registered,
      int routable,
      long generation,
      String now) {
    for (Condition c : prerequisites) {
      if (!"True".equals(c.getStatus())) {
        return Conditions.of(
            Conditions.READY,
            false,
            c.getReason(),
            c.getType() + " is False: " + c.getMessage(),
            generation,
            now);
      }
    }
    long pending = o.rows().stream().filter(r -> r.health().state() == MemberState.Pending).count();
    String waiting = pending == 0 ? "" : " (" + pending + " pending their first probes)";
    // Members that left by an edit and are kept until new ones take over (Draining, weight above
    // 0; a terminating Pod has weight 0) still answer requests: the pool is reachable.
    long leaving =
        o.rows().stream()
            .filter(r -> r.health().state() == MemberState.Draining && r.health().weight() > 0)
            .count();
    if (routable > 0 || leaving > 0) {
      String kept =
          leaving == 0
              ? ""
              : "; "
                  + leaving
                  + (leaving == 1 ? " leaving member serves" : " leaving members serve")
                  + " until new ones are routable";
      return Conditions.of(
          Conditions.READY,
          true,
          "EndpointsRoutable",
          routable + " of " + registered + " members routable" + waiting + kept,
          generation,
          now);
    }
    String message =
        registered == 0
            ? (o.noMembersReason() == null ? "no members" : o.noMembersReason())
            : "none of " + registered + " members is routable" + waiting;
    return Conditions.of(
        Conditions.READY,
        false,
        registered == 0 ? "NoMembers" : "NoRoutableEndpoints",
        message,
        generation,
        now);
  }

  /** Names the pool's groups, since data planes of other groups never count for it. */
  static String noDataPlaneMessage(ReplicaPool pool) {
    List<String> groups =
        pool.getSpec() == null
            ? List.of(ControlPlaneProtocol.DEFAULT_GROUP)
            : pool.getSpec().dataPlaneGroupsOrDefault();
    return "no data plane of "
        + (groups.size() == 1 ? "group " : "the groups ")
        + String.join(", ", groups)
        + " is connected";
  }
}
