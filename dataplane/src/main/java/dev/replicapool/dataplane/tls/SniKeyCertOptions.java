package dev.replicapool.dataplane.tls;

import io.vertx.core.Vertx;
import io.vertx.core.net.KeyCertOptions;
import java.util.function.Function;
import javax.net.ssl.KeyManagerFactory;

/**
 * Key material chosen per TLS server name (SNI): Vert.x asks {@link #keyManagerFactoryMapper} for
 * each name a client sends and caches the answer until the listener's SSL options are replaced;
 * names without an answer, and clients without SNI, get the fallback. Immutable: a change of
 * certificates is a new instance passed to {@code HttpServer.updateSSLOptions}.
 */
public final class SniKeyCertOptions implements KeyCertOptions {
  private final Function<String, KeyManagerFactory> byServerName;
  private final KeyManagerFactory fallback;

  public SniKeyCertOptions(
      Function<String, KeyManagerFactory> byServerName, KeyManagerFactory fallback) {
    this.byServerName = byServerName;
    this.fallback = fallback;
  }

  @Override
  public KeyCertOptions copy() {
    return this;
  }

  @Override
  public KeyManagerFactory getKeyManagerFactory(Vertx vertx) {
    return fallback;
  }

  @Override
  public Function<String, KeyManagerFactory> keyManagerFactoryMapper(Vertx vertx) {
    return byServerName;
  }
}
