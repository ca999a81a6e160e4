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

  /**
   * The member of a try answered with {@code status} (its head came); its {@link #attempt} follows.
   */
  default void answered(Endpoint member, int status) {}

  /** A request is tried again on another member. */
  default void retry(String pool, String reason) {}

  /** A response was sent to the client; pool is "none" when no pool matched. */
  default void response(String pool, int status, long nanos) {}

  /**
   * A hedge of a request: {@code sent}, {@code won} (its answer came first), {@code lost} (the
   * other try's did), {@code failed}, or {@code denied} (due, but the retry budget was spent).
   */
  default void hedge(String pool, String outcome) {}

  /** A retry or hedge the pool's retry budget did not allow. */
  default void budgetExhausted(String pool) {}

  /**
   * A request met a pool whose members were all at their in-flight limit: {@code queued}, {@code
   * admitted} (it left the queue for a member), {@code timeout}, or {@code overflow} (no room in
   * the queue, or no queue: answered 503 at once).
   */
  default void queue(String pool, String outcome) {}

  /**
   * A client broke the protocol ({@code protocol} h2: {@code error} the HTTP/2 error code of the
   * connection error, or {@code other}); its connection was closed.
   */
  default void clientProtocolError(String protocol, String error) {}

  /**
   * A request of {@code pool} was cut because its client ({@code protocol} http1 or h2) stalled for
   * the pool's idle timeout ({@code side}: {@code request}, it sent none of the rest of its request
   * while the member waited, answered 408; {@code answer}, it took none of the answer): the
   * client's connection (HTTP/1.x) or stream (HTTP/2) was closed or ended, and the member was not
   * counted failed.
   */
  default void clientStalled(String pool, String protocol, String side) {}
}
