package dev.replicapool.dataplane.training;

import dev.replicapool.dataplane.DataPlane;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
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
 * <p>A {@link LoopbackDataPlane} with a pool of three members of its own, then closed-loop load
 * until the time is up: each request followed by the next as it completes, HTTP/1.1 GETs from a
 * client and to members that cost next to nothing ({@link RawHttp}), so that the process's two
 * cores go to the data plane's path. With Vert.x's clients beside them (POSTs, HTTP/2, gRPC-framed
 * calls) the warm-up routed 14,000-22,000 requests in 3 s and the first second after ready ran at
 * 55-60 % of full speed; without them 42,000-54,000 and 70 %: the JIT compiled their code instead
 * of the data plane's. So the HTTP/2 paths are warmed only by what they share with HTTP/1.1
 * (routing, tries, member connections).
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
      return LoopbackDataPlane.with(
          vertx,
          "warm-up",
          (dp, cp) -> {
            LoopbackDataPlane.publish(
                cp, LoopbackDataPlane.pool("training/raw", RawHttp.HOST, "http", ports));
            return LoopbackDataPlane.onLoop(vertx, () -> load(vertx, dp, until));
          });
    } finally {
      for (NetServer r : raw) {
        r.close().await(30, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * Closed-loop load through {@code dp} until {@code untilNanos}: {@link #RAW} connections of cheap
   * GETs ({@link RawHttp}) to a pool of three members. Returns the requests routed.
   */
  static Future<Integer> load(Vertx vertx, DataPlane dp, long untilNanos) {
    NetClient net = vertx.createNetClient();
    List<Future<Integer>> chains = new ArrayList<>();
    for (int i = 0; i < RAW; i++) {
      chains.add(RawHttp.client(vertx, net, dp.trafficPort(), untilNanos));
    }
    return Future.all(chains)
        .map(all -> chains.stream().mapToInt(Future::result).sum())
        .eventually(net::close);
  }
}
