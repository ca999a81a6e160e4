package dev.replicapool.operator.probing;

/**
 * The end of one check as its checker saw it; the prober adds timing and the listener call.
 *
 * @param statusCode the HTTP status of HTTP and gRPC checks, -1 when no response arrived (and
 *     always for TCP checks)
 * @param cause null on success; else what kind of failure, for the metrics
 * @param error null on success; else its words for the member's status: "HTTP 500", "connection
 *     refused", "TLS: certificate expired"
 * @param connectionKept a connection to the member is open and pooled for the next check
 * @param utilization what the answer's ORCA load report said of the member's utilization ({@link
 *     dev.replicapool.controlplane.load.LoadReport#utilization}), null when it carried none
 */
public record CheckOutcome(
    boolean success,
    int statusCode,
    ProbeCause cause,
    String error,
    boolean connectionKept,
    Double utilization) {
  public CheckOutcome(
      boolean success, int statusCode, ProbeCause cause, String error, boolean connectionKept) {
    this(success, statusCode, cause, error, connectionKept, null);
  }

  public static CheckOutcome passed(int statusCode, boolean connectionKept) {
    return new CheckOutcome(true, statusCode, null, null, connectionKept);
  }

  public static CheckOutcome failed(
      int statusCode, ProbeCause cause, String error, boolean connectionKept) {
    return new CheckOutcome(false, statusCode, cause, error, connectionKept);
  }

  /** The same outcome with the utilization the answer reported (null: none). */
  public CheckOutcome withUtilization(Double reported) {
    return new CheckOutcome(success, statusCode, cause, error, connectionKept, reported);
  }

  /** No response: refused, reset, closed, a TLS handshake that failed. */
  public static CheckOutcome noResponse(Throwable failure) {
    ProbeFailures.Failure f = ProbeFailures.classify(failure);
    return new CheckOutcome(false, -1, f.cause(), f.message(), false);
  }

  /** A response that began but whose rest failed (a reset body): kept connection or not. */
  static CheckOutcome brokenResponse(int statusCode, Throwable failure) {
    ProbeFailures.Failure f = ProbeFailures.classify(failure);
    return new CheckOutcome(false, statusCode, f.cause(), f.message(), true);
  }
}
