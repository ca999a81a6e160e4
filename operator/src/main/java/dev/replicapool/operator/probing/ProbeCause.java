package dev.replicapool.operator.probing;

/**
 * Why a probe failed, as a user can act on it. {@link #label()} is the {@code cause} label of the
 * operator's probe counter; the words of each failure are in {@link CheckOutcome#error()}.
 */
public enum ProbeCause {
  /** No answer within the probe's timeout, or a connect that timed out. */
  TIMEOUT("timeout"),
  /** Nothing listens on the port. */
  REFUSED("refused"),
  /** The member closed or reset the connection or stream before it answered. */
  CLOSED("closed"),
  /** No route to the member, or its name does not resolve. */
  UNREACHABLE("unreachable"),
  /** An HTTP answer with a status the check does not expect. */
  HTTP_STATUS("http_status"),
  /** A gRPC answer other than OK and SERVING. */
  GRPC_STATUS("grpc_status"),
  /** The member's certificate is not for the name the prober verifies. */
  TLS_NAME("tls_name"),
  /** The member's certificate has expired or is not valid yet. */
  TLS_EXPIRED("tls_expired"),
  /** The member's certificate does not chain to a trusted CA. */
  TLS_UNTRUSTED("tls_untrusted"),
  /** Any other TLS failure (protocol, client certificate refused). */
  TLS_HANDSHAKE("tls_handshake"),
  OTHER("other");

  private final String label;

  ProbeCause(String label) {
    this.label = label;
  }

  /** The metric label: lower-case, stable. */
  public String label() {
    return label;
  }
}
