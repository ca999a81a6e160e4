package dev.replicapool.registrar;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Certificates and private keys in PEM, as kube configs carry them, read with the JDK alone: PKCS#8
 * keys ({@code PRIVATE KEY}, RSA or EC) and PKCS#1 RSA keys ({@code RSA PRIVATE KEY}, what kubeadm,
 * kind and kube-api-test write), which are wrapped into PKCS#8 for the JDK's key factory. Another
 * form (an {@code EC PRIVATE KEY}, an encrypted key) is empty: the registrar leaves such a config
 * to fabric8.
 */
final class Pem {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]+)-----END \\1-----");

  /** rsaEncryption (1.2.840.113549.1.1.1) with NULL parameters, DER. */
  private static final byte[] RSA_ALGORITHM = {
    0x30,
    0x0d,
    0x06,
    0x09,
    0x2a,
    (byte) 0x86,
    0x48,
    (byte) 0x86,
    (byte) 0xf7,
    0x0d,
    0x01,
    0x01,
    0x01,
    0x05,
    0x00
  };

  private Pem() {}

  static List<Certificate> certificates(byte[] pem) throws GeneralSecurityException {
    List<Certificate> certificates =
        List.copyOf(
            CertificateFactory.getInstance("X.509")
                .generateCertificates(new ByteArrayInputStream(pem)));
    if (certificates.isEmpty()) {
      throw new GeneralSecurityException("no certificate in the PEM data");
    }
    return certificates;
  }

  /** The first private key of {@code pem}, when it is in a form the JDK reads. */
  static Optional<PrivateKey> privateKey(byte[] pem) throws GeneralSecurityException {
    Matcher block = BLOCK.matcher(new String(pem, java.nio.charset.StandardCharsets.US_ASCII));
    while (block.find()) {
      byte[] der = Base64.getMimeDecoder().decode(block.group(2).replaceAll("\\s", ""));
      switch (block.group(1)) {
        case "PRIVATE KEY":
          return Optional.of(pkcs8(der));
        case "RSA PRIVATE KEY":
          return Optional.of(
              KeyFactory.getInstance("RSA")
                  .generatePrivate(new PKCS8EncodedKeySpec(wrapPkcs1(der))));
        default:
          if (block.group(1).endsWith("PRIVATE KEY")) {
            return Optional.empty();
          }
      }
    }
    throw new GeneralSecurityException("no private key in the PEM data");
  }

  private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    try {
      return KeyFactory.getInstance("RSA").generatePrivate(spec);
    } catch (GeneralSecurityException notRsa) {
      return KeyFactory.getInstance("EC").generatePrivate(spec);
    }
  }

  /** PrivateKeyInfo { version 0, rsaEncryption, OCTET STRING pkcs1 } (RFC 5208). */
  static byte[] wrapPkcs1(byte[] pkcs1) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(new byte[] {0x02, 0x01, 0x00});
    body.writeBytes(RSA_ALGORITHM);
    body.writeBytes(derHeader(0x04, pkcs1.length));
    body.writeBytes(pkcs1);
    ByteArrayOutputStream info = new ByteArrayOutputStream();
    info.writeBytes(derHeader(0x30, body.size()));
    info.writeBytes(body.toByteArray());
    return info.toByteArray();
  }

  private static byte[] derHeader(int tag, int length) {
    if (length < 0x80) {
      return new byte[] {(byte) tag, (byte) length};
    }
    int bytes = length > 0xffffff ? 4 : length > 0xffff ? 3 : length > 0xff ? 2 : 1;
    byte[] header = new byte[2 + bytes];
    header[0] = (byte) tag;
    header[1] = (byte) (0x80 | bytes);
    for (int i = 0; i < bytes; i++) {
      header[2 + i] = (byte) (length >>> (8 * (bytes - 1 - i)));
    }
    return header;
  }
}
