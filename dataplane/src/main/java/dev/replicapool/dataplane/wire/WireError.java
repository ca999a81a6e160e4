package dev.replicapool.dataplane.wire;

/** What a malformed or refused request gets: a status and a short reason for the body. */
public record WireError(int status, String message) {
  static WireError badRequest(String message) {
    return new WireError(400, message);
  }
}
