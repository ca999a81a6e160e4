package dev.replicapool.controlplane;

import dev.replicapool.api.wire.ControlPlaneProtocol;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.util.concurrent.TimeUnit;

/**
 * How the data plane dials the operator: TLS with the operator's CA (and the host name verified),
 * the client certificate of mutual TLS, and the bearer token on the WebSocket handshake.
 */
final class ClientSecurity {
  private ClientSecurity() {}

  /** The WebSocket client's options: frame limits, timeouts, TLS and the client certificate. */
  static WebSocketClientOptions clientOptions(ControlPlaneClient.Options options) {
    WebSocketClientOptions o =
        new WebSocketClientOptions()
            .setMaxFrameSize(ControlPlaneProtocol.MAX_FRAME_BYTES)
            .setMaxMessageSize(ControlPlaneProtocol.MAX_FRAME_BYTES)
            .setConnectTimeout(options.connectTimeoutMillis())
            .setReadIdleTimeout((int) (3 * options.pingIntervalMillis()))
            .setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
    if (options.trustPem() != null) {
      o.setSsl(true)
          .setVerifyHost(true)
          .setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(options.trustPem())));
    }
    if (options.clientCertPem() != null) {
      o.setKeyCertOptions(
          new PemKeyCertOptions()
              .setCertValue(Buffer.buffer(options.clientCertPem()))
              .setKeyValue(Buffer.buffer(options.clientKeyPem())));
    }
    return o;
  }

  /** One dial: the stream path, TLS when the operator's CA is known, the token. */
  static WebSocketConnectOptions connectOptions(ControlPlaneClient.Options options) {
    return new WebSocketConnectOptions()
        .setHost(options.host())
        .setPort(options.port())
        .setURI(ControlPlaneProtocol.STREAM_PATH)
        .setSsl(options.trustPem() != null)
        .putHeader(ControlPlaneProtocol.AUTHORIZATION, "Bearer " + options.token().strip());
  }
}
