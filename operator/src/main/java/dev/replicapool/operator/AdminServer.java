package dev.replicapool.operator;

import dev.replicapool.controlplane.ConnectedDataPlane;
import dev.replicapool.operator.metrics.OperatorMetrics;
import io.javaoperatorsdk.operator.Operator;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The operator's admin port: /metrics (Prometheus), /healthz (the process runs), /readyz (the
 * controller runs and, under leader election, this replica leads: data planes reach the operator
 * through a Service, so only the leader, which holds the snapshots, may receive them), /dataplanes
 * (the data planes connected to this replica, as JSON: {@link DataPlanesJson}).
 */
final class AdminServer {
  private AdminServer() {}

  static HttpServer start(
      Vertx vertx,
      String host,
      int port,
      OperatorMetrics metrics,
      AtomicBoolean running,
      AtomicBoolean leader,
      Operator operator,
      Supplier<List<ConnectedDataPlane>> dataPlanes) {
    return vertx
        .createHttpServer()
        .requestHandler(
            req -> {
              switch (req.path()) {
                case "/metrics" ->
                    req.response()
                        .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
                        .end(metrics.scrape());
                case "/healthz" -> req.response().end("ok\n");
                case "/dataplanes" ->
                    req.response()
                        .putHeader("content-type", "application/json")
                        .end(DataPlanesJson.render(dataPlanes.get()).encodePrettily() + "\n");
                case "/readyz" -> {
                  boolean ready =
                      running.get()
                          && operator.getRuntimeInfo().allEventSourcesAreHealthy()
                          && leader.get();
                  req.response()
                      .setStatusCode(ready ? 200 : 503)
                      .end(ready ? "ready\n" : "not ready\n");
                }
                default -> req.response().setStatusCode(404).end("not found\n");
              }
            })
        .listen(port, host)
        .await();
  }
}
