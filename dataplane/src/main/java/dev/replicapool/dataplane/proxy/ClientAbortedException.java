package dev.replicapool.dataplane.proxy;

/**
 * The client's side of the request failed (see {@link Exchange.Abort}): nothing goes to a member.
 */
final class ClientAbortedException extends RuntimeException {
  ClientAbortedException(Exchange.Abort why) {
    super("request given up: " + why, null, false, false);
  }
}
