package dev.replicapool.dataplane;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.wire.MemberSnapshot;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.impl.ConnectionBase;
import java.nio.ByteBuffer;
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
    CLOSE_ON_ACCEPT,
    /** Read the request, never answer it (past any per-try timeout): the connection stays open. */
    STALL,
    /**
     * Send the answer's head and part of its body, then cut it: an HTTP/1.1 connection is closed
     * (FIN, the chunked body unfinished), an HTTP/2 stream reset with CANCEL.
     */
    RESET_MID_ANSWER,
    /**
     * HTTP/2 only: answer the connection preface with GOAWAY(last-stream-id 0, NO_ERROR), so no
     * stream of the connection is processed (those opened are ignored, as RFC 9113 6.8 says).
     */
    GOAWAY_AT_PREFACE,
    /**
     * HTTP/2 only: read the request, then GOAWAY whose last-stream-id is the request's stream ("may
     * have been processed"), and close the connection without an answer.
     */
    GOAWAY_AFTER_READ,
    /**
     * HTTP/1.1 only: answer the request twice, in one write: 200 with its name, then a second 200
     * with the body {@code stray} that nobody asked for.
     */
    EXTRA_ANSWER
  }

  /** The body of the answer nobody asked for ({@link Mode#EXTRA_ANSWER}). */
  static final String STRAY = "stray";

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

  /** Milliseconds between reading a request whole and doing what its mode says: 0, at once. */
  private long delayMillis;

  /** Does what its mode says {@code millis} after reading each request. */
  CrashingMember after(long millis) {
    delayMillis = millis;
    return this;
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
            .connectionHandler(
                c -> {
                  accepted.incrementAndGet();
                  if (mode == Mode.GOAWAY_AT_PREFACE) {
                    c.goAway(0, 0);
                  }
                })
            .requestHandler(
                req ->
                    req.body()
                        .onSuccess(
                            body -> {
                              received.add(
                                  new Received(req.method().name(), req.path(), body.toString()));
                              seen.add(Seen.of(req.method().name(), req.path(), body.getBytes()));
                              if (delayMillis > 0) {
                                vertx.setTimer(delayMillis, id -> act(req));
                              } else {
                                act(req);
                              }
                            }))
            .listen(0, "127.0.0.1")
            .await();
    port = server.actualPort();
    return this;
  }

  /** What its mode does with a request it read. */
  private void act(HttpServerRequest req) {
    switch (mode) {
      case CRASH_AFTER_READ -> crash(req);
      case REFUSE_STREAM -> req.response().reset(0x7);
      case ANSWER_503 -> req.response().setStatusCode(503).end(name);
      case ANSWER -> answer(req);
      case CLOSE_ON_ACCEPT -> throw new IllegalStateException();
      case STALL, GOAWAY_AT_PREFACE -> {} // no answer, ever
      case RESET_MID_ANSWER -> resetMidAnswer(req);
      case GOAWAY_AFTER_READ -> goAwayAfterRead(req);
      case EXTRA_ANSWER -> answerTwice(req);
    }
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

  private static boolean grpc(HttpServerRequest req) {
    String type = req.getHeader("content-type");
    return type != null && type.startsWith("application/grpc");
  }

  /** Bytes written below every codec of the connection, as they are. */
  private static io.netty.channel.ChannelFuture writeRaw(HttpServerRequest req, byte[] bytes) {
    Channel ch = ((ConnectionBase) req.connection()).channel();
    return ch.pipeline().firstContext().writeAndFlush(Unpooled.wrappedBuffer(bytes));
  }

  private void resetMidAnswer(HttpServerRequest req) {
    HttpServerResponse r = req.response().setChunked(true).putHeader("x-replica", name);
    Buffer part;
    if (grpc(req)) {
      r.putHeader("content-type", "application/grpc");
      part = Buffer.buffer().appendByte((byte) 0).appendInt(100).appendString("only part");
    } else {
      part = Buffer.buffer("only part of the answer");
    }
    r.write(part)
        .onComplete(
            x -> {
              if (req.version() == HttpVersion.HTTP_2) {
                r.reset(0x8); // CANCEL
              } else {
                ((ConnectionBase) req.connection()).channel().close(); // FIN, body unfinished
              }
            });
  }

  private void goAwayAfterRead(HttpServerRequest req) {
    ByteBuffer goAway = ByteBuffer.allocate(9 + 8);
    goAway.put((byte) 0).putShort((short) 8).put((byte) 0x7).put((byte) 0).putInt(0);
    goAway.putInt(req.streamId()).putInt(0); // last-stream-id: this stream; NO_ERROR
    Channel ch = ((ConnectionBase) req.connection()).channel();
    writeRaw(req, goAway.array()).addListener(f -> ch.pipeline().firstContext().close());
  }

  private void answerTwice(HttpServerRequest req) {
    byte[] first;
    if (grpc(req)) {
      byte[] msg = name.getBytes(StandardCharsets.UTF_8);
      int size = 5 + msg.length;
      ByteBuffer frame = ByteBuffer.allocate(size).put((byte) 0).putInt(msg.length).put(msg);
      Buffer b =
          Buffer.buffer(
                  "HTTP/1.1 200 OK\r\ncontent-type: application/grpc\r\n"
                      + "transfer-encoding: chunked\r\n\r\n"
                      + Integer.toHexString(size)
                      + "\r\n")
              .appendBytes(frame.array())
              .appendString("\r\n0\r\ngrpc-status: 0\r\n\r\n");
      first = b.getBytes();
    } else {
      first =
          ("HTTP/1.1 200 OK\r\ncontent-length: "
                  + name.length()
                  + "\r\nx-replica: "
                  + name
                  + "\r\n\r\n"
                  + name)
              .getBytes(StandardCharsets.ISO_8859_1);
    }
    byte[] stray =
        ("HTTP/1.1 200 OK\r\ncontent-length: " + STRAY.length() + "\r\n\r\n" + STRAY)
            .getBytes(StandardCharsets.ISO_8859_1);
    writeRaw(req, Buffer.buffer(first).appendBytes(stray).getBytes());
  }

  MemberSnapshot snapshot(double weight) {
    return new MemberSnapshot("127.0.0.1", port, weight, MemberState.Healthy);
  }
}
