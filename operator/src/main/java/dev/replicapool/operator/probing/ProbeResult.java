package dev.replicapool.operator.probing;

import java.time.Instant;

/**
 * The outcome of one probe.
 *
 * @param success a 2xx that arrived, body included, within the timeout
 * @param latencyMillis from the start of the probe (connection included) to its end or timeout
 * @param statusCode the HTTP status, or -1 when no response arrived
 * @param cause null on success; else the kind of failure
 * @param error null on success; else why, in words: "HTTP 500", "timeout after 100 ms", "connection
 *     refused", "TLS: certificate for another name"
 * @param at wall-clock time the result was known
 * @param utilization the utilization the answer reported (ORCA {@code endpoint-load-metrics}), null
 *     when it carried no report or no answer arrived
 */
public record ProbeResult(
    MemberKey key,
    boolean success,
    long latencyMillis,
    int statusCode,
    ProbeCause cause,
    String error,
    Instant at,
    Double utilization) {

  public ProbeResult(
      MemberKey key,
      boolean success,
      long latencyMillis,
      int statusCode,
      ProbeCause cause,
      String error,
      Instant at) {
    this(key, success, latencyMillis, statusCode, cause, error, at, null);
  }

  public String pool() {
    return key.pool();
  }

  public String address() {
    return key.address();
  }
}
