package dev.replicapool.dataplane;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.wire.MemberSnapshot;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A replica: answers with {@code x-replica: <name>} and a small JSON body, like S1's. */
final class TestMember {
  final String name;
  final Vertx vertx;
  HttpServer server;
  int port;
  volatile int status = 200;
  volatile long delayMillis;

  /**
   * Answer as soon as the request head is in, before the body (as the sample replica does); the
   * body is still read and recorded.
   */
  volatile boolean answerEarly;

  /**
   * The length of the answer to a path under {@code /big}, written as the client's side takes it
   * (so that a reader who stops reading holds the member's writes, not its memory).
   */
  volatile int bigAnswerBytes = 128 << 20;

  /** Bytes of {@code /big} answers written so far. */
  final java.util.concurrent.atomic.AtomicLong bigBytesWritten =
      new java.util.concurrent.atomic.AtomicLong();

  /** An ORCA load report sent in every answer ({@code endpoint-load-metrics}); null: none. */
  volatile String loadReport;

  final AtomicInteger requests = new AtomicInteger();

  /** Requests whose head came and whose answer has not ended nor its connection closed. */
  final AtomicInteger inflight = new AtomicInteger();

  /** The most requests in flight at once. */
  final AtomicInteger maxInflight = new AtomicInteger();

  /** Request heads received (requests counts those whose body was read). */
  final AtomicInteger heads = new AtomicInteger();

  /**
   * Requests whose body never ended (the connection closed under it). Vert.x reports that only
   * while the answer is not complete: not for bodies cut after an early answer.
   */
  final AtomicInteger cutBodies = new AtomicInteger();

  /** Per connection, the requests it carried in order ("POST /up"); and the closed ones. */
  final Map<HttpConnection, List<String>> byConnection = new ConcurrentHashMap<>();

  final Set<HttpConnection> closedConnections = ConcurrentHashMap.newKeySet();

  final List<MultiMap> headersSeen = new AppendOnlyLog<>();
  final List<io.vertx.core.http.HttpVersion> versionsSeen = new AppendOnlyLog<>();
  final List<String> bodiesSeen = new AppendOnlyLog<>();

  TestMember(Vertx vertx, String name) {
    this.vertx = vertx;
    this.name = name;
  }

  TestMember start() {
    server =
        vertx
            .createHttpServer()
            .connectionHandler(
                c -> {
                  byConnection.put(c, new AppendOnlyLog<>());
                  c.closeHandler(v -> closedConnections.add(c));
                })
            .requestHandler(
                req -> {
                  heads.incrementAndGet();
                  int now = inflight.incrementAndGet();
                  maxInflight.accumulateAndGet(now, Math::max);
                  java.util.concurrent.atomic.AtomicBoolean over =
                      new java.util.concurrent.atomic.AtomicBoolean();
                  Runnable leave =
                      () -> {
                        if (over.compareAndSet(false, true)) {
                          inflight.decrementAndGet();
                        }
                      };
                  req.response().endHandler(v -> leave.run());
                  req.response().closeHandler(v -> leave.run());
                  versionsSeen.add(req.version());
                  byConnection
                      .computeIfAbsent(req.connection(), c -> new AppendOnlyLog<>())
                      .add(req.method() + " " + req.uri());
                  Runnable answer =
                      () -> {
                        var resp =
                            req.response()
                                .setStatusCode(status)
                                .putHeader("x-replica", name)
                                .putHeader("content-type", "application/json");
                        String report = loadReport;
                        if (report != null) {
                          resp.putHeader("endpoint-load-metrics", report);
                        }
                        if (req.version() != io.vertx.core.http.HttpVersion.HTTP_2) {
                          // hop-by-hop headers the proxy must drop (HTTP/2 has none)
                          resp.putHeader("keep-alive", "timeout=30")
                              .putHeader("connection", "keep-alive, x-hop")
                              .putHeader("x-hop", "must not pass");
                        }
                        if (req.path().startsWith("/big")) {
                          writeBig(resp, bigAnswerBytes);
                          return;
                        }
                        resp.end("{\"replica\":\"" + name + "\",\"tracking\":\"ok\"}");
                      };
                  boolean early = answerEarly;
                  if (early) {
                    answer.run();
                  }
                  req.body()
                      .onFailure(t -> cutBodies.incrementAndGet())
                      .onSuccess(
                          body -> {
                            requests.incrementAndGet();
                            headersSeen.add(
                                MultiMap.caseInsensitiveMultiMap().addAll(req.headers()));
                            bodiesSeen.add(body.toString());
                            if (early) {
                              return;
                            }
                            if (delayMillis > 0) {
                              vertx.setTimer(delayMillis, id -> answer.run());
                            } else {
                              answer.run();
                            }
                          });
                })
            .listen(port, "127.0.0.1")
            .await();
    port = server.actualPort();
    return this;
  }

  /** Writes {@code left} bytes in 64 KiB pieces, each once the connection can take it. */
  private void writeBig(io.vertx.core.http.HttpServerResponse resp, int left) {
    resp.putHeader("content-length", Integer.toString(left));
    resp.setChunked(false);
    io.vertx.core.buffer.Buffer piece = io.vertx.core.buffer.Buffer.buffer(new byte[65536]);
    Runnable[] more = new Runnable[1];
    int[] remaining = {left};
    more[0] =
        () -> {
          while (remaining[0] > 0 && !resp.writeQueueFull() && !resp.closed()) {
            int n = Math.min(remaining[0], piece.length());
            resp.write(n == piece.length() ? piece : piece.getBuffer(0, n));
            remaining[0] -= n;
            bigBytesWritten.addAndGet(n);
          }
          if (remaining[0] == 0) {
            resp.end();
          } else if (!resp.closed()) {
            resp.drainHandler(v -> more[0].run());
          }
        };
    more[0].run();
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
