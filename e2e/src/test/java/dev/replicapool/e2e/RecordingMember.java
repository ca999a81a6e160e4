package dev.replicapool.e2e;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A member that answers 200 to everything and records the method and path of every request but its
 * health probes, so that a test can tell what the proxy actually forwarded (a request smuggled past
 * the proxy would show up here, whatever the client saw).
 */
final class RecordingMember implements AutoCloseable {
  private final HttpServer server;
  private final List<String> received = new CopyOnWriteArrayList<>();

  RecordingMember(Vertx vertx) {
    server =
        vertx
            .createHttpServer()
            .requestHandler(
                req -> {
                  if (!req.path().equals("/healthz")) {
                    received.add(req.method() + " " + req.path());
                  }
                  // Read the body (a proxied POST has one) before answering.
                  req.end().onComplete(ar -> req.response().end("ok"));
                });
    try {
      server.listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("recording member did not start", e);
    }
  }

  String address() {
    return "127.0.0.1:" + server.actualPort();
  }

  /** "METHOD /path" of every request received so far, in arrival order. */
  List<String> received() {
    return List.copyOf(received);
  }

  @Override
  public void close() {
    server.close();
  }
}
