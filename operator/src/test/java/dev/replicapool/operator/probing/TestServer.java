package dev.replicapool.operator.probing;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP server on 127.0.0.1 for probe tests. Paths: /ok (200), /fail (500), /hang (never
 * answers), /delay?ms=N (200 after N ms). Counts requests per path, first arrival per {@code m}
 * query parameter, open /hang requests and closed connections.
 */
final class TestServer implements AutoCloseable {
  final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
  final Map<String, Long> firstSeenNanos = new ConcurrentHashMap<>();
  final AtomicInteger hanging = new AtomicInteger();
  final AtomicInteger maxHanging = new AtomicInteger();
  final AtomicInteger closedConnections = new AtomicInteger();
  final AtomicInteger openedConnections = new AtomicInteger();
  private final Set<HttpConnection> hungConnections = ConcurrentHashMap.newKeySet();
  private final Vertx vertx;
  private final HttpServer server;

  TestServer(Vertx vertx) throws Exception {
    this.vertx = vertx;
    this.server =
        vertx
            .createHttpServer()
            .connectionHandler(
                c -> {
                  openedConnections.incrementAndGet();
                  c.closeHandler(
                      v -> {
                        closedConnections.incrementAndGet();
                        if (hungConnections.remove(c)) {
                          hanging.decrementAndGet();
                        }
                      });
                })
            .requestHandler(this::handle)
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
  }

  int port() {
    return server.actualPort();
  }

  int count(String path) {
    AtomicInteger n = requests.get(path);
    return n == null ? 0 : n.get();
  }

  private void handle(HttpServerRequest req) {
    requests.computeIfAbsent(req.path(), p -> new AtomicInteger()).incrementAndGet();
    String m = req.getParam("m");
    if (m != null) {
      firstSeenNanos.putIfAbsent(m, System.nanoTime());
    }
    switch (req.path()) {
      case "/ok" -> req.response().end("ok");
      case "/fail" -> req.response().setStatusCode(500).end("boom");
      case "/hang" -> {
        int now = hanging.incrementAndGet();
        maxHanging.accumulateAndGet(now, Math::max);
        hungConnections.add(req.connection());
      }
      case "/delay" -> {
        long ms = Long.parseLong(req.getParam("ms"));
        vertx.setTimer(ms, id -> req.response().end("late"));
      }
      default -> req.response().setStatusCode(404).end();
    }
  }

  @Override
  public void close() throws Exception {
    server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
