package dev.replicapool.operator.reconciler;

import dev.replicapool.api.wire.TlsMaterial;
import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Decodes {@code kubernetes.io/tls} Secrets into PEM material: the pool's own certificate ({@code
 * spec.tls}) and the client certificate it presents to members ({@code spec.upstreamTls}). What
 * cannot be used becomes a problem (ConfigurationValid False, a Warning Event), never an exception.
 */
final class TlsSecretReader {
  static final String CERT_KEY = "tls.crt";
  static final String KEY_KEY = "tls.key";

  private TlsSecretReader() {}

  /**
   * The certificate and key of a TLS Secret, or null with a problem that names it.
   *
   * @param what how messages name the Secret, e.g. "TLS Secret"
   * @param secret the Secret as the informer cached it; null when not found
   */
  static TlsMaterial keyPair(String what, String name, Secret secret, List<String> problems) {
    if (secret == null) {
      problems.add(what + " " + name + " not found (it must be of type kubernetes.io/tls)");
      return null;
    }
    String cert = pem(data(secret).get(CERT_KEY), "BEGIN CERTIFICATE");
    String key = pem(data(secret).get(KEY_KEY), "PRIVATE KEY");
    if (cert == null || key == null) {
      problems.add(what + " " + name + " needs PEM tls.crt and tls.key");
      return null;
    }
    return new TlsMaterial(cert, key);
  }

  /** A Secret's data, never null. */
  static Map<String, String> data(Secret secret) {
    return secret.getData() == null ? Map.of() : secret.getData();
  }

  private static String pem(String base64, String marker) {
    String value = decode(base64);
    return value != null && value.contains(marker) ? value : null;
  }

  /** The text of a base64 value; null when absent or not base64. */
  static String decode(String base64) {
    if (base64 == null) {
      return null;
    }
    try {
      return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
