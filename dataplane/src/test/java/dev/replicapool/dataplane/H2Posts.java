package dev.replicapool.dataplane;

import dev.replicapool.testing.OnEventLoop;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP/2 client (Vert.x, prior knowledge) of a data plane's traffic port that POSTs: the
 * body in two DATA frames and no content-length, as a streaming client sends it.
 */
final class H2Posts implements AutoCloseable {
  record Answer(int status, String body) {}

  private final Vertx vertx;
  private final HttpClient client;
  private final int port;

  H2Posts(Vertx vertx, int port) {
    this.vertx = vertx;
    this.port = port;
    this.client = DataPlaneTestBase.h2PriorKnowledge(vertx);
  }

  /** POST {@code path} to {@code host}: its first 10 bytes in one frame, the rest in another. */
  Answer post(String host, String path, String body) throws Exception {
    RequestOptions post =
        new RequestOptions()
            .setServer(SocketAddress.inetSocketAddress(port, "127.0.0.1"))
            .setHost(host)
            .setPort(80)
            .setMethod(HttpMethod.POST)
            .setURI(path);
    return new OnEventLoop(vertx)
        .call(
            () ->
                client
                    .request(post)
                    .compose(
                        req -> {
                          req.setChunked(true); // no content-length
                          req.write(body.substring(0, 10));
                          req.end(body.substring(10));
                          return req.response();
                        })
                    .compose(r -> r.body().map(b -> new Answer(r.statusCode(), b.toString()))))
        .await(20, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    client.close().await();
  }
}
