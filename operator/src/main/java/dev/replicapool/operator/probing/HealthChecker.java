package dev.replicapool.operator.probing;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;

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
     * check's resources are free again. A check that keeps its connection tells {@code events}
     * about it.
     */
    Running start(ConnectionEvents events, Handler<CheckOutcome> done);

    /** {@link #start(ConnectionEvents, Handler)} with nobody watching the connection. */
    default Running start(Handler<CheckOutcome> done) {
      return start(ConnectionEvents.NONE, done);
    }
  }

  /**
   * What a check on a kept-alive HTTP connection (HTTP, gRPC) tells the prober, so that a close the
   * member did not announce (the kernel closing a dead process's sockets) triggers a probe at once;
   * see {@link PeerCloseWatch}. Called on the prober's event loop.
   */
  interface ConnectionEvents {
    ConnectionEvents NONE =
        new ConnectionEvents() {
          @Override
          public void sending(HttpClientRequest request) {}

          @Override
          public void answered(HttpClientResponse response) {}

          @Override
          public void resetting(HttpClientRequest request) {}
        };

    /** {@code request} is about to go out on {@code request.connection()}. */
    void sending(HttpClientRequest request);

    /** The member answered; its headers may announce that it closes the connection. */
    void answered(HttpClientResponse response);

    /** The check resets {@code request}; on HTTP/1.x that closes its connection. */
    void resetting(HttpClientRequest request);
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
