package dev.replicapool.dataplane.admin;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import java.util.function.Supplier;

/**
 * The admin port, apart from traffic: {@code /status} (JSON), {@code /metrics} (Prometheus text),
 * {@code /healthz} (the process runs) and {@code /readyz} (200 once the first snapshot is applied
 * and the warm-up, if any, is over; 503 with the reason before). Only GET and HEAD. Never shows TLS
 * keys or the control-plane token.
 */
public final class AdminServer {
  private final Vertx vertx;
  private final String host;
  private final int port;
  private final Supplier<JsonObject> status;
  private final DataPlaneMetrics metrics;

  /** Why the data plane is not ready yet, null once it is. */
  private final Supplier<String> notReady;

  private HttpServer server;

  public AdminServer(
      Vertx vertx,
      String host,
      int port,
      Supplier<JsonObject> status,
      DataPlaneMetrics metrics,
      Supplier<String> notReady) {
    this.vertx = vertx;
    this.host = host;
    this.port = port;
    this.status = status;
    this.metrics = metrics;
    this.notReady = notReady;
  }

  public Future<Integer> start() {
    return vertx
        .createHttpServer(new HttpServerOptions().setHost(host).setPort(port))
        .requestHandler(this::handle)
        .listen()
        .map(
            s -> {
              server = s;
              return s.actualPort();
            });
  }

  public int port() {
    return server == null ? -1 : server.actualPort();
  }

  public Future<Void> stop() {
    return server == null ? Future.succeededFuture() : server.close();
  }

  private void handle(HttpServerRequest req) {
    if (req.method() != HttpMethod.GET && req.method() != HttpMethod.HEAD) {
      req.response().setStatusCode(405).putHeader("allow", "GET, HEAD").end();
      return;
    }
    try {
      switch (req.path()) {
        case "/healthz" -> text(req, 200, "ok");
        case "/readyz" -> {
          String why = notReady.get();
          text(req, why == null ? 200 : 503, why == null ? "ready" : why);
        }
        case "/metrics" ->
            Future.fromCompletionStage(metrics.scrape(), Vertx.currentContext())
                .onSuccess(
                    text ->
                        req.response()
                            .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
                            .end(text))
                .onFailure(e -> text(req, 500, "admin error: " + e.getClass().getSimpleName()));
        case "/status" ->
            req.response()
                .putHeader("content-type", "application/json")
                .end(status.get().encodePrettily());
        default -> text(req, 404, "not found: try /status, /metrics, /healthz, /readyz");
      }
    } catch (RuntimeException e) {
      text(req, 500, "admin error: " + e.getClass().getSimpleName());
    }
  }

  private static void text(HttpServerRequest req, int status, String body) {
    req.response()
        .setStatusCode(status)
        .putHeader("content-type", "text/plain; charset=utf-8")
        .end(body + "\n");
  }
}
