package dev.replicapool.operator.probing;

import io.vertx.core.Handler;

/**
 * One kind of health check (HTTP, gRPC, TCP), apart from the {@link Prober}'s scheduling,
 * concurrency limits and timeouts.
 */
public interface HealthChecker {

  /** The check of one member, prepared once when the member is tracked and started each round. */
  interface MemberCheck {
    /**
     * Starts one check on the prober's event loop. {@code done} is called exactly once, on that
     * loop, also after {@link Running#abort()} (then with a failure), so the prober knows when the
     * check's resources are free again.
     */
    Running start(Handler<CheckOutcome> done);
  }

  /** A check in flight. */
  interface Running {
    /** Gives up the check (timeout, member untracked): resets its request or connection. */
    void abort();
  }

  /**
   * @param host the member's host; connections go there whatever {@code spec} says of names
   * @param port the port to probe (the spec's port, else the member's)
   * @param timeoutMillis the prober's timeout, for deadlines a check can tell the member
   */
  MemberCheck prepare(String host, int port, ProbeSpec spec, long timeoutMillis);
}
