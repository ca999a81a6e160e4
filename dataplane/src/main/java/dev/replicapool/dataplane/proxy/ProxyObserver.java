package dev.replicapool.dataplane.proxy;

import dev.replicapool.dataplane.routing.Endpoint;

/** What the proxy reports about traffic (metrics). Called on event loops: keep it cheap. */
public interface ProxyObserver {
  ProxyObserver NONE = new ProxyObserver() {};

  /**
   * One try on one member ended (response headers received, or failed).
   *
   * @param outcome 2xx..5xx, connect_failure, reset, timeout, or aborted (given up because the
   *     client's side failed: not the member's doing)
   */
  default void attempt(String pool, Endpoint member, String outcome, long nanos) {}

  /** A request is tried again on another member. */
  default void retry(String pool, String reason) {}

  /** A response was sent to the client; pool is "none" when no pool matched. */
  default void response(String pool, int status, long nanos) {}
}
