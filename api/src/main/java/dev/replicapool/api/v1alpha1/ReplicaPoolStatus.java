package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** What the operator observed. Built fresh on every reconcile, patched only when it changed. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ReplicaPoolStatus {
  @JsonPropertyDescription("The metadata.generation this status was computed for.")
  public Long observedGeneration;

  @JsonPropertyDescription(
      "Members known alive: a valid Lease, an existing Pod with a podIP, or a static endpoint.")
  public Integer registered;

  @JsonPropertyDescription("Members that get traffic now (registered, not Unhealthy, weight > 0).")
  public Integer routable;

  @JsonPropertyDescription(
      "Routable members that are Degraded (slow, failing some requests or recovering): they get"
          + " less traffic; their rows in endpoints say why.")
  public Integer degraded;

  @JsonPropertyDescription(
      "Ready (a request can reach a routable member: Accepted, ResolvedRefs and Programmed"
          + " True and a member routable), Accepted (the spec has a route), ResolvedRefs (its"
          + " TLS Secrets and CA ConfigMaps are usable), Programmed (a data plane applied the"
          + " latest version), Degraded, DataPlaneSynced, CapacityAtRisk, ConfigurationValid,"
          + " and Reconciled (False, reason ReconcileFailed, only while reconciling the pool"
          + " fails) (metav1.Condition).")
  public List<Condition> conditions = new ArrayList<>();

  @JsonPropertyDescription("One row per member, sorted by address.")
  public List<EndpointStatus> endpoints = new ArrayList<>();

  @JsonPropertyDescription("Capacity figures computed from spec.capacity and routable members.")
  public CapacityStatus capacity;

  @JsonPropertyDescription("Version of the endpoint snapshot last pushed to the data planes.")
  public Long snapshotVersion;

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof ReplicaPoolStatus s)) {
      return false;
    }
    return Objects.equals(observedGeneration, s.observedGeneration)
        && Objects.equals(registered, s.registered)
        && Objects.equals(routable, s.routable)
        && Objects.equals(degraded, s.degraded)
        && Objects.equals(conditions, s.conditions)
        && Objects.equals(endpoints, s.endpoints)
        && Objects.equals(capacity, s.capacity)
        && Objects.equals(snapshotVersion, s.snapshotVersion);
  }

  @Override
  public int hashCode() {
    return Objects.hash(observedGeneration, registered, routable, endpoints, snapshotVersion);
  }
}
