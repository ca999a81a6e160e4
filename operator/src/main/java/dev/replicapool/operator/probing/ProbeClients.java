package dev.replicapool.operator.probing;

import dev.replicapool.api.wire.UpstreamTlsMaterial;
import dev.replicapool.operator.probing.ProbeSpec.Transport;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.ClientSSLOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP clients of HTTP and gRPC checks: one per {@link Transport}, created when first needed,
 * and the TLS options of each pool's upstream material, passed per request.
 *
 * <p>Every client keeps one connection per origin (HTTP/1.1) or one multiplexed connection
 * (HTTP/2), on the event loop that asks for it (the prober's): a probe never opens a second
 * connection while a slow connect is still pending, so 10,000 members hold 10,000 sockets at most.
 * Vert.x keys pooled connections by their TLS options too, so a connection made with one pool's
 * material (say, insecureSkipVerify) never serves another pool's probes of the same address.
 */
final class ProbeClients {
  private static final Logger LOG = LoggerFactory.getLogger(ProbeClients.class);

  private final Vertx vertx;
  private final Map<Transport, HttpClient> clients = new ConcurrentHashMap<>();
  private final Map<TlsKey, ClientSSLOptions> sslOptions = new ConcurrentHashMap<>();

  private record TlsKey(UpstreamTlsMaterial material, Transport transport) {}

  ProbeClients(Vertx vertx) {
    this.vertx = vertx;
  }

  HttpClient client(Transport transport) {
    return clients.computeIfAbsent(transport, this::create);
  }

  /** The TLS options of one pool's material; the same instance for the same material. */
  ClientSSLOptions sslOptions(UpstreamTlsMaterial material, Transport transport) {
    return sslOptions.computeIfAbsent(
        new TlsKey(material, transport), k -> buildSslOptions(material, transport));
  }

  private HttpClient create(Transport transport) {
    HttpClientOptions o =
        new HttpClientOptions()
            .setKeepAlive(true)
            .setKeepAliveTimeout(Prober.KEEP_ALIVE_SECONDS)
            .setHttp2KeepAliveTimeout(Prober.KEEP_ALIVE_SECONDS)
            .setConnectTimeout(Prober.CONNECT_TIMEOUT_MILLIS)
            .setTcpNoDelay(true)
            .setDecompressionSupported(false);
    switch (transport) {
      case H1 -> {}
      case H2C -> o.setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false);
      case TLS_ALPN ->
          o.setSsl(true)
              .setUseAlpn(true)
              .setProtocolVersion(HttpVersion.HTTP_2)
              .setAlpnVersions(List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1));
      case TLS_H1 -> o.setSsl(true);
      case TLS_H2 ->
          o.setSsl(true)
              .setUseAlpn(true)
              .setProtocolVersion(HttpVersion.HTTP_2)
              .setAlpnVersions(List.of(HttpVersion.HTTP_2));
    }
    return vertx
        .httpClientBuilder()
        .with(o)
        .with(new PoolOptions().setHttp1MaxSize(1).setHttp2MaxSize(1).setEventLoopSize(0))
        // A member that resets or drops a connection is a failed probe, reported as such:
        // without a handler Vert.x also logs each one at ERROR (every interval, per member).
        .withConnectHandler(
            c -> c.exceptionHandler(e -> LOG.debug("probe connection {}: {}", c, e.toString())))
        .build();
  }

  private static ClientSSLOptions buildSslOptions(UpstreamTlsMaterial m, Transport transport) {
    ClientSSLOptions o = new ClientSSLOptions();
    if (m != null && m.insecureSkipVerify()) {
      o.setTrustAll(true).setHostnameVerificationAlgorithm("");
    } else {
      // Verify the chain and the name (serverName, else the member's host), as HTTPS does.
      o.setHostnameVerificationAlgorithm("HTTPS");
      if (m != null && m.caPem() != null) {
        o.setTrustOptions(new PemTrustOptions().addCertValue(Buffer.buffer(m.caPem())));
      }
    }
    if (m != null && m.certificatePem() != null && m.privateKeyPem() != null) {
      o.setKeyCertOptions(
          new PemKeyCertOptions()
              .addCertValue(Buffer.buffer(m.certificatePem()))
              .addKeyValue(Buffer.buffer(m.privateKeyPem())));
    }
    switch (transport) {
      case TLS_ALPN -> o.setUseAlpn(true).setApplicationLayerProtocols(List.of("h2", "http/1.1"));
      case TLS_H2 -> o.setUseAlpn(true).setApplicationLayerProtocols(List.of("h2"));
      default -> {}
    }
    return o;
  }

  Future<Void> close() {
    List<Future<Void>> closing = new ArrayList<>();
    clients.values().forEach(c -> closing.add(c.close()));
    clients.clear();
    return Future.join(closing).mapEmpty();
  }
}
