package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.CaCertificateSource;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.UpstreamTls;
import dev.replicapool.api.wire.TlsMaterial;
import dev.replicapool.api.wire.UpstreamTlsMaterial;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import java.util.List;
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
    TlsMaterial client =
        u.clientCertificateSecretName == null
            ? null
            : TlsSecretReader.keyPair(
                "upstreamTls client certificate Secret",
                u.clientCertificateSecretName,
                tlsSecrets.apply(u.clientCertificateSecretName),
                problems);
    String cert = client == null ? null : client.certificatePem();
    String key = client == null ? null : client.privateKeyPem();
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
        value = TlsSecretReader.decode(cm.getBinaryData().get(key));
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
      value = TlsSecretReader.decode(TlsSecretReader.data(secret).get(key));
    }
    if (value == null || !value.contains("BEGIN CERTIFICATE")) {
      problems.add("upstreamTls CA " + where + " needs a PEM certificate under key " + key);
      return null;
    }
    return value;
  }
}
