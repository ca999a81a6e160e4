package dev.replicapool.dataplane;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.wire.MemberSnapshot;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.impl.ConnectionBase;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;

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
    REFUSE_STREAM,
    /** 503 with its name as the body: answered, not processed. */
    ANSWER_503,
    /**
     * Crash before reading: a plain TCP listener that closes every connection as it accepts it, so
     * no byte of a request is ever read (nothing is recorded but the connection).
     */
    CLOSE_ON_ACCEPT
  }

  /** One request as the member read it. */
  record Received(String method, String path, String body) {}

  /** One request as the member read it, its body as a byte count and a CRC32 of those bytes. */
  record Seen(String method, String path, int bytes, long crc32) {
    static Seen of(String method, String path, byte[] body) {
      CRC32 crc = new CRC32();
      crc.update(body);
      return new Seen(method, path, body.length, crc.getValue());
    }
  }

  final String name;
  final Vertx vertx;
  final Mode mode;
  final List<Received> received = new CopyOnWriteArrayList<>();

  /** Every request read, in order, the same as {@link #received} but with its body's checksum. */
  final List<Seen> seen = new CopyOnWriteArrayList<>();

  /** Connections accepted. */
  final AtomicInteger accepted = new AtomicInteger();

  HttpServer server;
  NetServer tcp;
  int port;

  CrashingMember(Vertx vertx, String name, Mode mode) {
    this.vertx = vertx;
    this.name = name;
    this.mode = mode;
  }

  CrashingMember start() {
    if (mode == Mode.CLOSE_ON_ACCEPT) {
      tcp =
          vertx
              .createNetServer()
              .connectHandler(
                  so -> {
                    accepted.incrementAndGet();
                    so.close();
                  })
              .listen(0, "127.0.0.1")
              .await();
      port = tcp.actualPort();
      return this;
    }
    server =
        vertx
            .createHttpServer()
            .connectionHandler(c -> accepted.incrementAndGet())
            .requestHandler(
                req ->
                    req.body()
                        .onSuccess(
                            body -> {
                              received.add(
                                  new Received(req.method().name(), req.path(), body.toString()));
                              seen.add(Seen.of(req.method().name(), req.path(), body.getBytes()));
                              switch (mode) {
                                case CRASH_AFTER_READ -> crash(req);
                                case REFUSE_STREAM -> req.response().reset(0x7);
                                case ANSWER_503 -> req.response().setStatusCode(503).end(name);
                                case ANSWER -> answer(req);
                                case CLOSE_ON_ACCEPT -> throw new IllegalStateException();
                              }
                            }))
            .listen(0, "127.0.0.1")
            .await();
    port = server.actualPort();
    return this;
  }

  /**
   * 200 with its name; a gRPC call (over HTTP/2 or HTTP/1.1) gets its name as the one message and
   * {@code grpc-status: 0} in trailers, which a grpc-java client reads as the call's answer.
   */
  private void answer(HttpServerRequest req) {
    String type = req.getHeader("content-type");
    if (type == null || !type.startsWith("application/grpc")) {
      req.response().putHeader("x-replica", name).end(name);
      return;
    }
    byte[] msg = name.getBytes(StandardCharsets.UTF_8);
    Buffer frame = Buffer.buffer().appendByte((byte) 0).appendInt(msg.length).appendBytes(msg);
    req.response()
        .setChunked(true)
        .putHeader("content-type", "application/grpc")
        .putHeader("x-replica", name)
        .putTrailer("grpc-status", "0")
        .end(frame);
  }

  /** Closes the listener (and, for an HTTP member, its connections). */
  void stop() {
    if (server != null) {
      server.close().await();
    }
    if (tcp != null) {
      tcp.close().await();
    }
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
