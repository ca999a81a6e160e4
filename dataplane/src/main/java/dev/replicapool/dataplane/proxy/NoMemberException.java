package dev.replicapool.dataplane.proxy;

/** The request cannot go anywhere: it is answered locally with this status and message. */
final class NoMemberException extends RuntimeException {
  final int status;

  NoMemberException(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }
}
