package dev.replicapool.dataplane;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.wire.MemberSnapshot;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.impl.ConnectionBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A member (HTTP/1.1 and h2c with prior knowledge) that records every request it receives in full
 * (method and body bytes), then does what its {@link Mode} says. Each request's body is recorded as
 * received, so a test can compare it byte for byte.
 */
final class CrashingMember {
  /** What the member does once it has read a request. */
  enum Mode {
    /** 200 with {@code x-replica} and its name as the body. */
    ANSWER,
    /**
     * Crash: stop listening, and the connection vanishes (closed with a TCP reset, below the HTTP/2
     * codec, so no GOAWAY), the way a process killed after reading a request looks from the
     * network.
     */
    CRASH_AFTER_READ,
    /** Reset the HTTP/2 stream with REFUSED_STREAM: "nothing of it was processed". */
    REFUSE_STREAM
  }

  /** One request as the member read it. */
  record Received(String method, String path, String body) {}

  final String name;
  final Vertx vertx;
  final Mode mode;
  final List<Received> received = new CopyOnWriteArrayList<>();
  HttpServer server;
  int port;

  CrashingMember(Vertx vertx, String name, Mode mode) {
    this.vertx = vertx;
    this.name = name;
    this.mode = mode;
  }

  CrashingMember start() {
    server =
        vertx
            .createHttpServer()
            .requestHandler(
                req ->
                    req.body()
                        .onSuccess(
                            body -> {
                              received.add(
                                  new Received(req.method().name(), req.path(), body.toString()));
                              switch (mode) {
                                case CRASH_AFTER_READ -> crash(req);
                                case REFUSE_STREAM -> req.response().reset(0x7);
                                case ANSWER ->
                                    req.response().putHeader("x-replica", name).end(name);
                              }
                            }))
            .listen(0, "127.0.0.1")
            .await();
    port = server.actualPort();
    return this;
  }

  private void crash(HttpServerRequest req) {
    server.close();
    Channel ch = ((ConnectionBase) req.connection()).channel();
    ch.config().setOption(ChannelOption.SO_LINGER, 0);
    ch.unsafe().close(ch.unsafe().voidPromise()); // no GOAWAY, no FIN: a reset, as from a crash
  }

  MemberSnapshot snapshot(double weight) {
    return new MemberSnapshot("127.0.0.1", port, weight, MemberState.Healthy);
  }
}
