package dev.replicapool.api.wire;

/**
 * How a data plane (and the prober) speaks TLS to a pool's members: the CA bundle to trust (PEM;
 * null trusts the JVM's default roots), the server name sent as SNI and checked against the
 * member's certificate (null: the member's host), an optional client certificate and key for mutual
 * TLS, and whether verification is switched off. Never logged.
 */
public record UpstreamTlsMaterial(
    String caPem,
    String serverName,
    String certificatePem,
    String privateKeyPem,
    boolean insecureSkipVerify) {
  @Override
  public String toString() {
    return "UpstreamTlsMaterial[serverName=" + serverName + ", redacted]";
  }
}
