package dev.replicapool.dataplane.config;

import dev.replicapool.api.wire.UpstreamTlsMaterial;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * How the data plane speaks TLS to a pool's members ({@code https}, {@code kubernetes.io/wss}): the
 * CA to trust (the JVM's roots when none is given), the name sent as SNI and checked against the
 * member's certificate (the member's host when none is given), an optional client certificate for
 * mutual TLS. Verification is on unless the pool switched it off. One context for HTTP/1.1 and one
 * for HTTP/2, told apart by ALPN. Material that does not load NACKs the snapshot.
 */
public final class UpstreamTls {
  private final SslContext http1;
  private final SslContext http2;
  private final String serverName;
  private final boolean verify;
  private final String key;

  private UpstreamTls(SslContext http1, SslContext http2, String serverName, boolean verify) {
    this.http1 = http1;
    this.http2 = http2;
    this.serverName = serverName;
    this.verify = verify;
    this.key = "tls@" + Integer.toHexString(System.identityHashCode(this)) + "/";
  }

  /**
   * @param m null trusts the JVM's roots, verifies the member's host, sends no certificate
   */
  public static UpstreamTls load(UpstreamTlsMaterial m) {
    try {
      return new UpstreamTls(
          context(m, ApplicationProtocolNames.HTTP_1_1),
          context(m, ApplicationProtocolNames.HTTP_2),
          m == null ? null : m.serverName(),
          m == null || !m.insecureSkipVerify());
    } catch (Exception e) {
      throw new IllegalArgumentException(
          "upstreamTls: cannot load the CA or client certificate ("
              + e.getClass().getSimpleName()
              + ")");
    }
  }

  private static SslContext context(UpstreamTlsMaterial m, String protocol) throws Exception {
    SslContextBuilder b = SslContextBuilder.forClient();
    if (m != null && m.insecureSkipVerify()) {
      b.trustManager(InsecureTrustManagerFactory.INSTANCE);
    } else if (m != null && m.caPem() != null && !m.caPem().isBlank()) {
      b.trustManager(pem(m.caPem()));
    }
    if (m != null && m.certificatePem() != null && m.privateKeyPem() != null) {
      b.keyManager(pem(m.certificatePem()), pem(m.privateKeyPem()));
    }
    b.applicationProtocolConfig(
        new ApplicationProtocolConfig(
            ApplicationProtocolConfig.Protocol.ALPN,
            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
            protocol));
    return b.build();
  }

  private static ByteArrayInputStream pem(String s) {
    return new ByteArrayInputStream(s.getBytes(StandardCharsets.US_ASCII));
  }

  /** A handler for a new connection to {@code host}, HTTP/2 or HTTP/1.1 by ALPN. */
  public SslHandler handler(ByteBufAllocator alloc, String host, int port, boolean h2) {
    String name = serverName != null ? serverName : host;
    SslHandler h = (h2 ? http2 : http1).newHandler(alloc, name, port);
    if (verify) {
      SSLEngine engine = h.engine();
      SSLParameters p = engine.getSSLParameters();
      p.setEndpointIdentificationAlgorithm("HTTPS");
      engine.setSSLParameters(p);
    }
    return h;
  }

  /** Prefix of member-connection keys: TLS connections never mix with another pool's or plain. */
  public String key() {
    return key;
  }
}
