package dev.replicapool.dataplane.tls;

import dev.replicapool.api.wire.TlsMaterial;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.HexFormat;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.X509KeyManager;

/**
 * Turns a pool's PEM certificate and key into what a TLS listener needs, and refuses material that
 * would only fail at the first handshake: unparsable PEM, or a key that does not belong to the
 * certificate. Error messages never contain the PEM itself.
 */
public final class TlsMaterials {
  private TlsMaterials() {}

  /** A parsed, checked certificate and key. */
  public record Loaded(
      KeyManagerFactory keyManagerFactory,
      SslContext serverContext,
      String fingerprint,
      String subject,
      Instant notAfter) {
    @Override
    public String toString() {
      return "Loaded[" + subject + ", sha256=" + fingerprint + "]";
    }
  }

  public static Loaded load(Vertx vertx, TlsMaterial material) {
    KeyManagerFactory kmf = keyManagerFactory(vertx, material);
    X509KeyManager km = x509KeyManager(kmf);
    String alias = km == null ? null : serverAlias(km);
    if (alias == null) {
      throw new IllegalArgumentException("tls: no usable key in the material");
    }
    X509Certificate[] chain = km.getCertificateChain(alias);
    PrivateKey key = km.getPrivateKey(alias);
    if (chain == null || chain.length == 0 || key == null) {
      throw new IllegalArgumentException("tls: certificate chain or key missing");
    }
    X509Certificate leaf = chain[0];
    checkPair(key, leaf);
    return new Loaded(
        kmf,
        serverContext(kmf),
        fingerprint(material.certificatePem()),
        leaf.getSubjectX500Principal().getName(),
        leaf.getNotAfter().toInstant());
  }

  private static KeyManagerFactory keyManagerFactory(Vertx vertx, TlsMaterial material) {
    try {
      return new PemKeyCertOptions()
          .setCertValue(Buffer.buffer(material.certificatePem()))
          .setKeyValue(Buffer.buffer(material.privateKeyPem()))
          .getKeyManagerFactory(vertx);
    } catch (Exception e) {
      throw new IllegalArgumentException(
          "tls: cannot load the certificate and key (" + e.getClass().getSimpleName() + ")");
    }
  }

  /** The factory's last X.509 key manager, or null. */
  private static X509KeyManager x509KeyManager(KeyManagerFactory kmf) {
    X509KeyManager km = null;
    for (KeyManager m : kmf.getKeyManagers()) {
      if (m instanceof X509KeyManager x) {
        km = x;
      }
    }
    return km;
  }

  /** The first alias with a server key of a type we know, or null. */
  private static String serverAlias(X509KeyManager km) {
    for (String type : new String[] {"RSA", "EC", "EdDSA", "Ed25519", "DSA"}) {
      String[] aliases = km.getServerAliases(type, null);
      if (aliases != null && aliases.length > 0) {
        return aliases[0];
      }
    }
    return null;
  }

  /** A server context offering HTTP/2 and HTTP/1.1 by ALPN. */
  private static SslContext serverContext(KeyManagerFactory kmf) {
    try {
      return SslContextBuilder.forServer(kmf)
          .applicationProtocolConfig(
              new ApplicationProtocolConfig(
                  ApplicationProtocolConfig.Protocol.ALPN,
                  ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                  ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                  ApplicationProtocolNames.HTTP_2,
                  ApplicationProtocolNames.HTTP_1_1))
          .build();
    } catch (Exception e) {
      throw new IllegalArgumentException(
          "tls: cannot build a TLS context (" + e.getClass().getSimpleName() + ")");
    }
  }

  private static void checkPair(PrivateKey key, X509Certificate cert) {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          case "EdDSA", "Ed25519" -> "Ed25519";
          default -> null;
        };
    if (algorithm == null) {
      return; // cannot check: let the handshake tell
    }
    try {
      byte[] probe = "replicapool".getBytes(StandardCharsets.UTF_8);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] sig = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(cert.getPublicKey());
      verifier.update(probe);
      if (!verifier.verify(sig)) {
        throw new IllegalArgumentException("tls: the private key does not match the certificate");
      }
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalArgumentException("tls: the private key does not match the certificate");
    }
  }

  private static String fingerprint(String pem) {
    try {
      byte[] d =
          MessageDigest.getInstance("SHA-256").digest(pem.strip().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 8);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
