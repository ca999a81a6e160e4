package dev.replicapool.registrar;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class PemTest {
  @Test
  void aPkcs1RsaKeyIsWrappedIntoThePkcs8TheJdkWrites() throws Exception {
    KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
    rsa.initialize(2048);
    PrivateKey key = rsa.generateKeyPair().getPrivate();
    byte[] pkcs8 = key.getEncoded();
    // The JDK's PKCS#8 of an RSA key: a 26-byte prefix (two long-form lengths), then PKCS#1.
    byte[] pkcs1 = Arrays.copyOfRange(pkcs8, 26, pkcs8.length);
    assertThat(pkcs1[0]).isEqualTo((byte) 0x30);

    assertThat(Pem.wrapPkcs1(pkcs1)).isEqualTo(pkcs8);
    assertThat(Pem.privateKey(pem("RSA PRIVATE KEY", pkcs1))).contains(key);
    assertThat(Pem.privateKey(pem("PRIVATE KEY", pkcs8))).contains(key);
  }

  @Test
  void aPkcs8EcKeyIsReadASec1OneIsLeftToFabric8() throws Exception {
    KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
    ec.initialize(new ECGenParameterSpec("secp256r1"));
    PrivateKey key = ec.generateKeyPair().getPrivate();

    assertThat(Pem.privateKey(pem("PRIVATE KEY", key.getEncoded()))).contains(key);
    assertThat(Pem.privateKey(pem("EC PRIVATE KEY", new byte[] {0x30, 0x00}))).isEmpty();
    assertThat(Pem.privateKey(pem("ENCRYPTED PRIVATE KEY", new byte[] {0x30, 0x00}))).isEmpty();
  }

  @Test
  void aKeyAfterACertificateInTheSameDataIsFound() throws Exception {
    KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
    rsa.initialize(1024);
    PrivateKey key = rsa.generateKeyPair().getPrivate();
    byte[] both =
        (new String(pem("CERTIFICATE", new byte[] {1, 2, 3}))
                + new String(pem("PRIVATE KEY", key.getEncoded())))
            .getBytes();
    assertThat(Pem.privateKey(both)).contains(key);
  }

  static byte[] pem(String type, byte[] der) {
    return ("-----BEGIN "
            + type
            + "-----\n"
            + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
            + "\n-----END "
            + type
            + "-----\n")
        .getBytes();
  }
}
