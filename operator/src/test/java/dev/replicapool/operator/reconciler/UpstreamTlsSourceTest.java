package dev.replicapool.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.AppProtocol;
import dev.replicapool.api.v1alpha1.CaCertificateSource;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.v1alpha1.UpstreamTls;
import dev.replicapool.api.wire.UpstreamTlsMaterial;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UpstreamTlsSourceTest {
  static final String CA = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
  static final String CERT = "-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n";
  static final String KEY = "-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n";

  final Map<String, Secret> secrets =
      Map.of(
          "client", tlsSecret(Map.of("tls.crt", CERT, "tls.key", KEY)),
          "issuer", tlsSecret(Map.of("tls.crt", CERT, "tls.key", KEY, "ca.crt", CA)),
          "half", tlsSecret(Map.of("tls.crt", CERT)));
  final Map<String, ConfigMap> configMaps =
      Map.of(
          "bundle",
          new ConfigMapBuilder()
              .withNewMetadata()
              .withName("bundle")
              .endMetadata()
              .addToData("ca.crt", CA)
              .addToData("other.pem", "not a cert")
              .build());
  final List<String> problems = new ArrayList<>();

  static Secret tlsSecret(Map<String, String> data) {
    SecretBuilder b = new SecretBuilder().withType("kubernetes.io/tls");
    data.forEach(
        (k, v) ->
            b.addToData(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
    return b.build();
  }

  UpstreamTlsMaterial resolve(ReplicaPoolSpec spec) {
    return UpstreamTlsSource.resolve(spec, secrets::get, configMaps::get, problems);
  }

  static ReplicaPoolSpec spec(AppProtocol protocol, UpstreamTls tls) {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.appProtocol = protocol;
    spec.upstreamTls = tls;
    return spec;
  }

  static UpstreamTls tls(String configMap, String secret, String key) {
    UpstreamTls t = new UpstreamTls();
    t.ca = new CaCertificateSource();
    t.ca.configMapName = configMap;
    t.ca.secretName = secret;
    if (key != null) {
      t.ca.key = key;
    }
    return t;
  }

  @Test
  void clearTextProtocolsHaveNoMaterial() {
    assertThat(resolve(spec(AppProtocol.HTTP, null))).isNull();
    assertThat(resolve(spec(AppProtocol.H2C, tls("bundle", null, null)))).isNull();
    assertThat(resolve(spec(AppProtocol.WS, null))).isNull();
    assertThat(problems).isEmpty();
  }

  @Test
  void tlsWithoutUpstreamTlsVerifiesWithDefaultRoots() {
    assertThat(resolve(spec(AppProtocol.HTTPS, null)))
        .isEqualTo(new UpstreamTlsMaterial(null, null, null, null, false));
    assertThat(problems).isEmpty();
  }

  @Test
  void everyFieldIsMapped() {
    UpstreamTls t = tls("bundle", null, null);
    t.serverName = "tracking.internal";
    t.clientCertificateSecretName = "client";
    assertThat(resolve(spec(AppProtocol.WSS, t)))
        .isEqualTo(new UpstreamTlsMaterial(CA, "tracking.internal", CERT, KEY, false));
    assertThat(problems).isEmpty();
  }

  @Test
  void caFromTheCaKeyOfATlsSecret() {
    assertThat(resolve(spec(AppProtocol.HTTPS, tls(null, "issuer", null))).caPem()).isEqualTo(CA);
    assertThat(problems).isEmpty();
  }

  @Test
  void insecureSkipVerifyIsPassedOn() {
    UpstreamTls t = new UpstreamTls();
    t.insecureSkipVerify = true;
    assertThat(resolve(spec(AppProtocol.HTTPS, t)).insecureSkipVerify()).isTrue();
  }

  @Test
  void missingConfigMapIsAProblemAndTheDefaultRootsStay() {
    UpstreamTlsMaterial m = resolve(spec(AppProtocol.HTTPS, tls("gone", null, null)));
    assertThat(m.caPem()).isNull();
    assertThat(m.insecureSkipVerify()).isFalse();
    assertThat(problems).containsExactly("upstreamTls CA ConfigMap gone not found");
  }

  @Test
  void keyWithoutAPemCertificateIsAProblem() {
    resolve(spec(AppProtocol.HTTPS, tls("bundle", null, "other.pem")));
    resolve(spec(AppProtocol.HTTPS, tls("bundle", null, "absent.pem")));
    assertThat(problems)
        .containsExactly(
            "upstreamTls CA ConfigMap bundle needs a PEM certificate under key other.pem",
            "upstreamTls CA ConfigMap bundle needs a PEM certificate under key absent.pem");
  }

  @Test
  void missingCaSecretSaysWhichTypeIsRead() {
    resolve(spec(AppProtocol.HTTPS, tls(null, "opaque-ca", null)));
    assertThat(problems)
        .singleElement()
        .asString()
        .contains("Secret opaque-ca not found")
        .contains("kubernetes.io/tls")
        .contains("ConfigMap");
  }

  @Test
  void clientCertificateProblemsLeaveNoHalfPair() {
    UpstreamTls t = new UpstreamTls();
    t.clientCertificateSecretName = "half";
    UpstreamTlsMaterial m = resolve(spec(AppProtocol.HTTPS, t));
    assertThat(m.certificatePem()).isNull();
    assertThat(m.privateKeyPem()).isNull();
    t.clientCertificateSecretName = "nowhere";
    resolve(spec(AppProtocol.HTTPS, t));
    assertThat(problems)
        .containsExactly(
            "upstreamTls client certificate Secret half needs PEM tls.crt and tls.key",
            "upstreamTls client certificate Secret nowhere not found (it must be of type"
                + " kubernetes.io/tls)");
  }
}
