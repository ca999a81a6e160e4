package dev.replicapool.registrar;

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

  private final LeaseApi api;
  private final MemberLease lease;

  LeaseWriter(LeaseApi api, MemberLease lease) {
    this.api = api;
    this.lease = lease;
  }

  /** Whether a write went through: until then, the Lease is created first. */
  private boolean written;

  void write(boolean healthy, boolean draining, Instant now) {
    if (!written) {
      try {
        create(healthy, draining, now);
        written = true;
        return;
      } catch (LeaseApi.RefusedException e) {
        if (e.code() != 409) {
          throw e;
        }
        // there already (a replica started again): renewed by the patch below
      }
    }
    try {
      api.mergePatch(lease.renewalPatch(healthy, draining, now));
    } catch (LeaseApi.RefusedException e) {
      if (e.code() != 404) {
        throw e;
      }
      create(healthy, draining, now);
    }
    written = true;
  }

  private void create(boolean healthy, boolean draining, Instant now) {
    api.create(lease.creationJson(healthy, draining, now));
    log.info("created Lease {}/{}", lease.namespace(), lease.leaseName());
  }

  /** Deletes the Lease (after a drain): the member leaves at once instead of at its expiry. */
  void delete() {
    api.delete();
  }

  /** A failure in one line: the API server's code and message, else the message and its cause. */
  static String describe(Exception e) {
    if (e instanceof LeaseApi.RefusedException) {
      return e.getMessage();
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
