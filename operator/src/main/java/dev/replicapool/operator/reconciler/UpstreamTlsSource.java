package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.CaCertificateSource;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.UpstreamTls;
import dev.replicapool.api.wire.UpstreamTlsMaterial;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Turns a pool's {@code spec.upstreamTls} into the PEM material the data planes and the prober use,
 * from the Secrets and ConfigMaps it names. No I/O: the lookups read informer caches.
 *
 * <p>What cannot be used becomes a problem (ConfigurationValid False, a Warning Event) and that
 * part is left out: a missing CA falls back to the default trust roots, with verification still on,
 * and a missing client certificate means none is presented, so members that require one fail their
 * probes rather than being reached with weaker settings than asked for.
 */
final class UpstreamTlsSource {
  static final String CERT_KEY = "tls.crt";
  static final String KEY_KEY = "tls.key";

  private UpstreamTlsSource() {}

  /**
   * @param tlsSecrets kubernetes.io/tls Secrets of the pool's namespace by name (null: not found)
   * @param configMaps ConfigMaps of the pool's namespace by name (null: not found)
   * @return null when the pool has no upstream TLS (clear-text protocols, or no upstreamTls)
   */
  static UpstreamTlsMaterial resolve(
      ReplicaPoolSpec spec,
      Function<String, Secret> tlsSecrets,
      Function<String, ConfigMap> configMaps,
      List<String> problems) {
    if (spec.appProtocol == null || !spec.appProtocol.tls()) {
      return null;
    }
    UpstreamTls u = spec.upstreamTls == null ? new UpstreamTls() : spec.upstreamTls;
    boolean skipVerify = Boolean.TRUE.equals(u.insecureSkipVerify);
    String ca = u.ca == null ? null : caPem(u.ca, tlsSecrets, configMaps, problems);
    String cert = null;
    String key = null;
    if (u.clientCertificateSecretName != null) {
      String name = u.clientCertificateSecretName;
      Secret secret = tlsSecrets.apply(name);
      if (secret == null) {
        problems.add(
            "upstreamTls client certificate Secret "
                + name
                + " not found (it must be of type kubernetes.io/tls)");
      } else {
        cert = pem(data(secret).get(CERT_KEY), "BEGIN CERTIFICATE");
        key = pem(data(secret).get(KEY_KEY), "PRIVATE KEY");
        if (cert == null || key == null) {
          problems.add(
              "upstreamTls client certificate Secret " + name + " needs PEM tls.crt and tls.key");
          cert = null;
          key = null;
        }
      }
    }
    return new UpstreamTlsMaterial(ca, u.serverName, cert, key, skipVerify);
  }

  private static String caPem(
      CaCertificateSource source,
      Function<String, Secret> tlsSecrets,
      Function<String, ConfigMap> configMaps,
      List<String> problems) {
    String key = source.key == null ? "ca.crt" : source.key;
    String where;
    String value;
    if (source.configMapName != null) {
      where = "ConfigMap " + source.configMapName;
      ConfigMap cm = configMaps.apply(source.configMapName);
      if (cm == null) {
        problems.add("upstreamTls CA " + where + " not found");
        return null;
      }
      value = cm.getData() == null ? null : cm.getData().get(key);
      if (value == null && cm.getBinaryData() != null && cm.getBinaryData().get(key) != null) {
        value = decode(cm.getBinaryData().get(key));
      }
    } else {
      where = "Secret " + source.secretName;
      Secret secret = tlsSecrets.apply(source.secretName);
      if (secret == null) {
        problems.add(
            "upstreamTls CA "
                + where
                + " not found (it must be of type kubernetes.io/tls; a CA kept in another kind"
                + " of Secret goes into a ConfigMap)");
        return null;
      }
      value = decode(data(secret).get(key));
    }
    if (value == null || !value.contains("BEGIN CERTIFICATE")) {
      problems.add("upstreamTls CA " + where + " needs a PEM certificate under key " + key);
      return null;
    }
    return value;
  }

  private static Map<String, String> data(Secret secret) {
    return secret.getData() == null ? Map.of() : secret.getData();
  }

  private static String pem(String base64, String marker) {
    String value = decode(base64);
    return value != null && value.contains(marker) ? value : null;
  }

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
