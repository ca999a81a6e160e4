package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.exchange.TryCourse;
import dev.replicapool.dataplane.routing.Endpoint;

/**
 * One try of an HTTP/1.x exchange, as its {@link TryCourse} knows it: the first, a retry, a hedge.
 */
interface H1Try extends TryCourse.Attempt {
  Endpoint member();

  /** Given up: whatever it holds of its member's connection is dropped. */
  void cancel();
}
