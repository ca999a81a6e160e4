package dev.replicapool.controlplane;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.ServerWebSocketHandshake;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control-plane port's TLS and who may use it: the port's certificate, the client CA of mutual
 * TLS, the bearer token checked at the WebSocket handshake and, per connection, what its token and
 * client certificate allow. Which tokens serve which group is {@link DataPlaneCredentials}'s.
 */
final class ServerSecurity {
  private static final Logger log = LoggerFactory.getLogger(ControlPlaneServer.class);

  private final ControlPlaneServer.Options options;
  private volatile DataPlaneCredentials credentials;

  ServerSecurity(ControlPlaneServer.Options options) {
    this.options = options;
    setToken(options.token());
  }

  /** Replaces the accepted shared token; connections already open stay. */
  void setToken(String token) {
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException("a control-plane token is required");
    }
    credentials = new DataPlaneCredentials(token, options.groupTokens());
  }

  /** Puts the port's certificate and, for mutual TLS, the client CA on the server options. */
  HttpServerOptions configure(HttpServerOptions o) {
    if (options.tls() != null) {
      o.setSsl(true)
          .setKeyCertOptions(
              new PemKeyCertOptions()
                  .setCertValue(Buffer.buffer(options.tls().certificatePem()))
                  .setKeyValue(Buffer.buffer(options.tls().privateKeyPem())));
    }
    if (options.mutualTls()) {
      // A client without a certificate signed by this CA fails the TLS handshake: it never gets
      // to send its token, let alone a hello.
      o.setClientAuth(ClientAuth.REQUIRED)
          .setTrustOptions(
              new PemTrustOptions().addCertValue(Buffer.buffer(options.clientCaPem())));
    }
    return o;
  }

  /** How the port is protected, for the log. */
  String describe() {
    return options.mutualTls()
        ? "mutual TLS: client certificates required"
        : options.tls() != null ? "TLS" : "plain TCP";
  }

  /** Accepts the WebSocket handshake of a known token on the stream path only. */
  void handshake(ServerWebSocketHandshake hs) {
    if (grant(hs.headers()) == null) {
      log.warn(
          "refused a control-plane connection from {}{}: bad or no token",
          hs.remoteAddress(),
          options.mutualTls()
              ? " (client certificate " + clientSubject(hs::peerCertificates) + ")"
              : "");
      hs.reject(401);
      return;
    }
    if (!ControlPlaneProtocol.STREAM_PATH.equals(hs.path())) {
      hs.reject(404);
      return;
    }
    hs.accept();
  }

  /** A plain HTTP request: 401 without a known token, else 426 (the port only speaks WebSocket). */
  void plainRequest(HttpServerRequest req) {
    int status = grant(req.headers()) == null ? 401 : 426;
    req.response().setStatusCode(status).end();
  }

  void connectionError(Throwable t) {
    if (t instanceof SSLHandshakeException) {
      // A data plane without a certificate the client CA signed, or one that does not trust this
      // port's certificate: the one place that says why it never connects (no address is known).
      log.info("control-plane TLS handshake failed: {}", t.getMessage());
    } else {
      log.debug("control-plane connection error: {}", t.toString());
    }
  }

  /** A stream accepted by {@link #handshake}, with what its token and certificate allow. */
  DataPlaneConnection identify(ServerWebSocket ws) {
    String certificateGroup = null;
    String certificateProblem = null;
    if (options.mutualTls()) {
      try {
        certificateGroup = certificateGroup(ws.peerCertificates());
      } catch (SSLPeerUnverifiedException | IllegalArgumentException e) {
        certificateProblem = UntrustedText.sanitize(e.getMessage());
      }
    }
    return new DataPlaneConnection(
        ws,
        options.mutualTls() ? clientSubject(ws::peerCertificates) : null,
        certificateGroup,
        certificateProblem,
        grant(ws.headers()));
  }

  /**
   * Why the connection may not serve the group, or null when it may.
   *
   * @param declared the group its hello names, or null
   */
  String refusal(DataPlaneConnection c, String group, String declared) {
    if (c.grant == null) {
      return "bad or no token";
    }
    return credentials.refusal(c.grant, declared != null ? declared : group, c.certificateGroup);
  }

  private DataPlaneCredentials.Grant grant(MultiMap headers) {
    return credentials.grant(headers.get(ControlPlaneProtocol.AUTHORIZATION));
  }

  /** {@code peerCertificates()} of a WebSocket or of its handshake. */
  private interface PeerCertificates {
    List<Certificate> get() throws SSLPeerUnverifiedException;
  }

  /** The group the leaf certificate of the chain names, or null. */
  private static String certificateGroup(List<Certificate> chain) {
    if (chain != null && !chain.isEmpty() && chain.get(0) instanceof X509Certificate x) {
      return DataPlaneCredentials.certificateGroup(x);
    }
    return null;
  }

  /** The subject of the peer's certificate, for the log; never throws. */
  private static String clientSubject(PeerCertificates peer) {
    List<Certificate> chain;
    try {
      chain = peer.get();
    } catch (SSLPeerUnverifiedException | RuntimeException e) {
      return "(unavailable: " + e.getClass().getSimpleName() + ")";
    }
    if (chain != null && !chain.isEmpty() && chain.get(0) instanceof X509Certificate x) {
      String subject = x.getSubjectX500Principal().getName();
      return subject.isBlank() ? "(empty subject)" : UntrustedText.sanitize(subject);
    }
    return "(none)";
  }
}
