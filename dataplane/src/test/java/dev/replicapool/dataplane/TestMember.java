package dev.replicapool.dataplane;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.wire.MemberSnapshot;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A replica: answers with {@code x-replica: <name>} and a small JSON body, like S1's. */
final class TestMember {
  final String name;
  final Vertx vertx;
  HttpServer server;
  int port;
  volatile int status = 200;
  volatile long delayMillis;
  final AtomicInteger requests = new AtomicInteger();
  final List<MultiMap> headersSeen = new CopyOnWriteArrayList<>();
  final List<String> bodiesSeen = new CopyOnWriteArrayList<>();

  TestMember(Vertx vertx, String name) {
    this.vertx = vertx;
    this.name = name;
  }

  TestMember start() {
    server =
        vertx
            .createHttpServer()
            .requestHandler(
                req ->
                    req.body()
                        .onSuccess(
                            body -> {
                              requests.incrementAndGet();
                              headersSeen.add(
                                  MultiMap.caseInsensitiveMultiMap().addAll(req.headers()));
                              bodiesSeen.add(body.toString());
                              Runnable answer =
                                  () ->
                                      req.response()
                                          .setStatusCode(status)
                                          .putHeader("x-replica", name)
                                          .putHeader("content-type", "application/json")
                                          .putHeader("keep-alive", "timeout=30")
                                          .putHeader("connection", "keep-alive, x-hop")
                                          .putHeader("x-hop", "must not pass")
                                          .end(
                                              "{\"replica\":\"" + name + "\",\"tracking\":\"ok\"}");
                              if (delayMillis > 0) {
                                vertx.setTimer(delayMillis, id -> answer.run());
                              } else {
                                answer.run();
                              }
                            }))
            .listen(port, "127.0.0.1")
            .await();
    port = server.actualPort();
    return this;
  }

  /** Closes the port and every connection: the replica is gone. */
  void kill() {
    server.close().await();
  }

  MemberSnapshot snapshot(double weight) {
    return new MemberSnapshot("127.0.0.1", port, weight, MemberState.Healthy);
  }

  MemberSnapshot snapshot(double weight, MemberState state) {
    return new MemberSnapshot("127.0.0.1", port, weight, state);
  }
}
