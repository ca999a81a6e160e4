package dev.replicapool.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.wire.TlsMaterial;
import io.fabric8.kubernetes.api.model.Secret;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TlsSecretReaderTest {
  static final String CERT = UpstreamTlsSourceTest.CERT;
  static final String KEY = UpstreamTlsSourceTest.KEY;
  final List<String> problems = new ArrayList<>();

  TlsMaterial read(Secret secret) {
    return TlsSecretReader.keyPair("TLS Secret", "web-tls", secret, problems);
  }

  @Test
  void aPemPairIsTheMaterial() {
    TlsMaterial m = read(UpstreamTlsSourceTest.tlsSecret(Map.of("tls.crt", CERT, "tls.key", KEY)));
    assertThat(m).isEqualTo(new TlsMaterial(CERT, KEY));
    assertThat(problems).isEmpty();
  }

  @Test
  void aMissingSecretIsAProblemThatSaysWhichTypeItMustBe() {
    assertThat(read(null)).isNull();
    assertThat(problems)
        .containsExactly("TLS Secret web-tls not found (it must be of type kubernetes.io/tls)");
  }

  @Test
  void aMissingHalfOrTextThatIsNotPemIsAProblem() {
    assertThat(read(UpstreamTlsSourceTest.tlsSecret(Map.of("tls.crt", CERT)))).isNull();
    assertThat(read(UpstreamTlsSourceTest.tlsSecret(Map.of("tls.crt", KEY, "tls.key", CERT))))
        .isNull();
    assertThat(read(new Secret())).isNull();
    assertThat(problems)
        .hasSize(3)
        .allMatch("TLS Secret web-tls needs PEM tls.crt and tls.key"::equals);
  }

  @Test
  void base64ThatIsNotIsNoValue() {
    assertThat(TlsSecretReader.decode("not base64!")).isNull();
    assertThat(TlsSecretReader.decode(null)).isNull();
    assertThat(TlsSecretReader.decode("aGk=")).isEqualTo("hi");
  }
}
