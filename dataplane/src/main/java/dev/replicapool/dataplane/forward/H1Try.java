package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.exchange.TryCourse;
import dev.replicapool.dataplane.routing.Endpoint;

/**
 * One try of an HTTP/1.x exchange, as its {@link TryCourse} knows it: the first, a retry, a hedge.
 */
abstract class H1Try implements TryCourse.Attempt {
  private final Endpoint member;
  private final long sentAt;

  H1Try(Endpoint member, long sentAt) {
    this.member = member;
    this.sentAt = sentAt;
  }

  @Override
  public final Endpoint member() {
    return member;
  }

  @Override
  public final long sentAt() {
    return sentAt;
  }

  /** Given up: whatever it holds of its member's connection is dropped. */
  abstract void cancel();
}
