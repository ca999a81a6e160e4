package dev.replicapool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/** A pool of identical replicas that the operator keeps healthy and the data plane routes to. */
@Group(ReplicaPool.GROUP)
@Version(ReplicaPool.VERSION)
@Kind("ReplicaPool")
@Plural("replicapools")
@Singular("replicapool")
@ShortNames("rp")
@JsonClassDescription(
    "A pool of identical replicas: where its members come from, how they are probed, how"
        + " traffic is spread across them, and (in status) what the operator observed.")
@AdditionalPrinterColumn(
    name = "Ready",
    jsonPath = ".status.conditions[?(@.type==\"Ready\")].status",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Registered",
    jsonPath = ".status.registered",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Routable",
    jsonPath = ".status.routable",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Degraded",
    jsonPath = ".status.degraded",
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Policy",
    jsonPath = ".spec.routing.policy",
    type = AdditionalPrinterColumn.Type.STRING)
// -o wide only (priority 1): what someone on call reaches for next.
@AdditionalPrinterColumn(
    name = "Synced",
    jsonPath = ".status.conditions[?(@.type==\"DataPlaneSynced\")].status",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Snapshot",
    jsonPath = ".status.snapshotVersion",
    type = AdditionalPrinterColumn.Type.INTEGER,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Degraded-Reason",
    jsonPath = ".status.conditions[?(@.type==\"Degraded\")].reason",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = ".metadata.creationTimestamp",
    type = AdditionalPrinterColumn.Type.DATE)
public class ReplicaPool extends CustomResource<ReplicaPoolSpec, ReplicaPoolStatus>
    implements Namespaced {
  public static final String GROUP = "replicapool.dev";
  public static final String VERSION = "v1alpha1";

  /** Label that ties a registration Lease to its pool (value: the pool's name). */
  public static final String POOL_LABEL = "replicapool.dev/pool";
}
