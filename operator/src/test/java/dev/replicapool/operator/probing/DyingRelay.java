package dev.replicapool.operator.probing;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A TCP relay on 127.0.0.1 in front of a test server, so that the server can die as a process does,
 * below HTTP: {@link #die()} closes every client socket with a plain FIN (no {@code Connection:
 * close}, no GOAWAY) and stops listening, as the kernel does for a killed process; {@link
 * #freeze()} keeps the sockets open and forwards nothing more, as a frozen process or a partition
 * does.
 */
final class DyingRelay implements AutoCloseable {
  private final NetServer server;
  private final NetClient client;
  private final Set<NetSocket> sockets = ConcurrentHashMap.newKeySet();
  private volatile boolean frozen;

  DyingRelay(Vertx vertx, int targetPort) throws Exception {
    client = vertx.createNetClient();
    server =
        vertx
            .createNetServer()
            .connectHandler(
                s -> {
                  s.pause();
                  sockets.add(s);
                  client
                      .connect(targetPort, "127.0.0.1")
                      .onSuccess(
                          u -> {
                            sockets.add(u);
                            relay(s, u);
                            relay(u, s);
                            s.resume();
                          })
                      .onFailure(e -> s.close());
                })
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
  }

  private void relay(NetSocket from, NetSocket to) {
    from.handler(
        b -> {
          if (!frozen) {
            to.write(b);
          }
        });
    from.closeHandler(v -> to.close());
  }

  int port() {
    return server.actualPort();
  }

  /** Nothing listens any more and every connection is closed. */
  void die() throws Exception {
    List<Future<Void>> closing = new ArrayList<>();
    closing.add(server.close());
    sockets.forEach(s -> closing.add(s.close()));
    Future.join(closing).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Connections stay open; nothing more passes in either direction. */
  void freeze() {
    frozen = true;
  }

  @Override
  public void close() throws Exception {
    die();
    client.close();
  }
}
