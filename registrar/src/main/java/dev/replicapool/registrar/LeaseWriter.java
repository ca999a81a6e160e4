package dev.replicapool.registrar;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API calls of a renewal: one JSON merge patch of the Lease, or its creation when it is gone
 * (404: the operator deleted it after it expired). The first write creates it (a new replica's
 * Lease is not there yet: a patch first would cost a round trip before the member is known), and
 * patches it when it is there already (409: a replica started again under its name). Throws what
 * the API server answered; {@link LeaseRegistrar} decides what a failure means.
 */
final class LeaseWriter {
  /** The registrar's logger: what a renewal did is the registrar's story in the log. */
  private static final Logger log = LoggerFactory.getLogger(LeaseRegistrar.class);

  private final KubernetesClient client;
  private final MemberLease lease;

  /** The Lease by name alone: what {@code resource(...)} needs to address it. */
  private final Lease target;

  LeaseWriter(KubernetesClient client, MemberLease lease) {
    this.client = client;
    this.lease = lease;
    this.target =
        new LeaseBuilder()
            .withNewMetadata()
            .withName(lease.leaseName())
            .withNamespace(lease.namespace())
            .endMetadata()
            .build();
  }

  /** Whether a write went through: until then, the Lease is created first. */
  private boolean written;

  void write(boolean healthy, boolean draining, Instant now) {
    var leases = client.leases().inNamespace(lease.namespace());
    if (!written) {
      try {
        create(leases, healthy, draining, now);
        written = true;
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
        // there already (a replica started again): renewed by the patch below
      }
    }
    try {
      // Patching through resource(item) addresses the Lease by the item's name; withName(...)
      // would GET it first, doubling the calls per renewal.
      leases
          .resource(target)
          .patch(PatchContext.of(PatchType.JSON_MERGE), lease.renewalPatch(healthy, draining, now));
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
      create(leases, healthy, draining, now);
    }
    written = true;
  }

  private void create(
      NonNamespaceOperation<Lease, LeaseList, Resource<Lease>> leases,
      boolean healthy,
      boolean draining,
      Instant now) {
    Lease created = leases.resource(lease.toLease(healthy, draining, now)).create();
    log.info(
        "created Lease {}/{} (resourceVersion {})",
        lease.namespace(),
        lease.leaseName(),
        created.getMetadata().getResourceVersion());
  }

  /** Deletes the Lease (after a drain): the member leaves at once instead of at its expiry. */
  void delete() {
    client.leases().inNamespace(lease.namespace()).resource(target).delete();
  }

  /** A failure in one line: the API server's status, else the message and its root cause. */
  static String describe(Exception e) {
    if (e instanceof KubernetesClientException k && k.getCode() > 0) {
      String reason = k.getStatus() != null ? k.getStatus().getMessage() : k.getMessage();
      return "HTTP " + k.getCode() + ": " + reason;
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = e.getMessage();
    if (root != e) {
      message = message + " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
    }
    return message;
  }
}
