package dev.replicapool.operator.probing;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.RequestOptions;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a few requests through the HTTP/1.1 and h2c probe clients to a throwaway server on
 * 127.0.0.1 before the first real probe: a cold JVM spends a few hundred milliseconds loading the
 * HTTP stack, which would fail the first probes of every member under a tight timeout (S1's 100 ms)
 * and eject healthy members at operator start.
 */
final class ProbeWarmUp {
  private static final Logger LOG = LoggerFactory.getLogger(ProbeWarmUp.class);

  /**
   * Probes start after this at the latest, whatever the warm-up got to. Real time: a cold JVM's.
   */
  static final long CAP_MILLIS = 3_000;

  private static final int REQUESTS_PER_TRANSPORT = 20;

  private ProbeWarmUp() {}

  /** Runs the warm-up on the caller's event loop; the future completes, never fails. */
  static Future<Void> run(Vertx vertx, ProbeClients clients) {
    Promise<Void> done = Promise.promise();
    long cap = vertx.setTimer(CAP_MILLIS, id -> done.tryComplete());
    vertx
        .createHttpServer()
        .requestHandler(r -> r.response().end("ok"))
        .listen(0, "127.0.0.1")
        .compose(server -> requests(server, clients).eventually(server::close))
        .onComplete(
            ar -> {
              if (ar.failed()) {
                LOG.debug("prober warm-up: {}", ar.cause().toString());
              }
              vertx.cancelTimer(cap);
              done.tryComplete();
            });
    return done.future();
  }

  private static Future<Void> requests(HttpServer server, ProbeClients clients) {
    RequestOptions o =
        new RequestOptions().setHost("127.0.0.1").setPort(server.actualPort()).setURI("/warm-up");
    Future<Void> chain = Future.succeededFuture();
    // HTTP/1.1 and HTTP/2 (h2c: gRPC checks) each have their own code to load.
    for (ProbeSpec.Transport transport : List.of(ProbeSpec.Transport.H1, ProbeSpec.Transport.H2C)) {
      HttpClient client = clients.client(transport);
      for (int i = 0; i < REQUESTS_PER_TRANSPORT; i++) {
        chain =
            chain.compose(
                v ->
                    client
                        .request(o)
                        .compose(HttpClientRequest::send)
                        .compose(HttpClientResponse::end));
      }
    }
    return chain;
  }
}
