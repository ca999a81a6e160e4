package dev.replicapool.operator.probing;

/**
 * The end of one check as its checker saw it; the prober adds timing and the listener call.
 *
 * @param statusCode the HTTP status of HTTP and gRPC checks, -1 when no response arrived (and
 *     always for TCP checks)
 * @param error null on success
 * @param connectionKept a connection to the member is open and pooled for the next check
 */
public record CheckOutcome(boolean success, int statusCode, String error, boolean connectionKept) {
  public static CheckOutcome passed(int statusCode, boolean connectionKept) {
    return new CheckOutcome(true, statusCode, null, connectionKept);
  }

  public static CheckOutcome failed(int statusCode, String error, boolean connectionKept) {
    return new CheckOutcome(false, statusCode, error, connectionKept);
  }

  /** No response: refused, reset, closed, aborted. */
  public static CheckOutcome noResponse(Throwable cause) {
    return new CheckOutcome(false, -1, describe(cause), false);
  }

  static String describe(Throwable t) {
    String m = t.getMessage();
    return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
  }
}
