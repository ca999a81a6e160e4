package dev.replicapool.api.wire;

/** PEM certificate chain and private key, from the pool's TLS Secret. Never logged. */
public record TlsMaterial(String certificatePem, String privateKeyPem) {
  @Override
  public String toString() {
    return "TlsMaterial[redacted]";
  }
}
