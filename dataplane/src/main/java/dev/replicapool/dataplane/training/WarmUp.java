package dev.replicapool.dataplane.training;

import dev.replicapool.dataplane.DataPlane;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A running data plane's warm-up ({@code --warm-up-seconds}): before it says it is ready, requests
 * go for a few seconds through a copy of it on loopback, in the same Vert.x, so that the JIT has
 * compiled the request paths (the copy's classes and compiled code are the data plane's own) when
 * traffic comes. Nothing leaves the process, and nothing of the running data plane is touched: the
 * copy has its own control plane, member, ports, metrics and connections.
 *
 * <p>The training run's set-up with one more pool, then closed-loop load until the time is up (the
 * training run's 1,800 requests, in their small batches, took two cold seconds alone): each request
 * followed by the next as it completes, mostly HTTP/1.1 GETs from a client and to a member that
 * cost next to nothing (the busiest path, {@link RawHttp}), with POSTs and HTTP/2 and gRPC-framed
 * calls beside them. The JIT compiles a method fully after some ten thousand calls, and the data
 * plane reaches full speed after about a hundred thousand requests.
 */
public final class WarmUp {
  /** Connections of cheap HTTP/1.1 GETs during the load, one request in flight on each. */
  static final int RAW = 32;

  private WarmUp() {}

  /**
   * Warms up for {@code millis}; returns the requests routed. Throws when an answer was not the
   * member's.
   */
  public static int run(Vertx vertx, long millis) throws Exception {
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    // Three members, as a pool has: a balancer's choice among one is not the path it takes.
    List<NetServer> raw = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        raw.add(RawHttp.member(vertx).listen(0, "127.0.0.1").await(30, TimeUnit.SECONDS));
      }
      int[] ports = raw.stream().mapToInt(NetServer::actualPort).toArray();
      return TrainingRun.withDataPlane(
          vertx,
          "warm-up",
          (dp, cp) -> {
            TrainingRun.publish(cp, TrainingRun.pool("training/raw", RawHttp.HOST, "http", ports));
            return TrainingRun.onLoop(vertx, () -> load(vertx, dp, until));
          });
    } finally {
      for (NetServer r : raw) {
        r.close().await(30, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * Closed-loop load through {@code dp} until {@code untilNanos}: {@link #RAW} connections of cheap
   * GETs ({@link RawHttp}), and beside them one chain each of HTTP/1.1 POSTs, HTTP/2 POSTs and
   * gRPC-framed calls through Vert.x's clients. Returns the requests routed.
   */
  static Future<Integer> load(Vertx vertx, DataPlane dp, long untilNanos) {
    HttpClient h1 = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true));
    HttpClient h2 =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setProtocolVersion(HttpVersion.HTTP_2)
                .setHttp2ClearTextUpgrade(false));
    NetClient net = vertx.createNetClient();
    int port = dp.trafficPort();
    List<Future<Integer>> chains = new ArrayList<>();
    for (int i = 0; i < RAW; i++) {
      chains.add(RawHttp.client(vertx, net, port, untilNanos));
    }
    chains.add(
        chain(
            h1,
            TrainingRun.request(port, "h1.training", HttpMethod.POST, "text/plain"),
            "training",
            untilNanos));
    chains.add(
        chain(
            h2,
            TrainingRun.request(port, "h2.training", HttpMethod.POST, "text/plain"),
            "training",
            untilNanos));
    chains.add(
        chain(
            h2,
            TrainingRun.request(port, "h2.training", HttpMethod.POST, TrainingRun.GRPC),
            "",
            untilNanos));
    return Future.all(chains)
        .map(all -> chains.stream().mapToInt(Future::result).sum())
        .eventually(() -> Future.all(h1.close(), h2.close(), net.close()));
  }

  /**
   * One request after another until {@code untilNanos}: the count, or the first failure. Each next
   * request is sent from the last one's completion, not composed onto it, so that tens of thousands
   * of them nest no futures.
   */
  private static Future<Integer> chain(
      HttpClient c, RequestOptions o, String body, long untilNanos) {
    Promise<Integer> done = Promise.promise();
    new Object() {
      int sent;

      void next() {
        if (System.nanoTime() >= untilNanos) {
          done.complete(sent);
          return;
        }
        TrainingRun.one(c, o, body)
            .onSuccess(
                v -> {
                  sent++;
                  next();
                })
            .onFailure(done::fail);
      }
    }.next();
    return done.future();
  }
}
