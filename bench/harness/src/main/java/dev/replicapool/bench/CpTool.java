package dev.replicapool.bench;

import dev.replicapool.api.v1alpha1.Hedging;
import dev.replicapool.api.v1alpha1.Idempotent;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.Retry;
import dev.replicapool.api.v1alpha1.RetryBudget;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.v1alpha1.Timeouts;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import dev.replicapool.controlplane.ControlPlaneServer;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A stand-in operator for the proxy benchmarks: a real {@link ControlPlaneServer} that data planes
 * dial, plus a tiny HTTP port to publish a pool from a shell script:
 *
 * <pre>
 * CpTool --port 17000 --token-file F --http-port 17001
 * curl '127.0.0.1:17001/publish?pool=bench/p&policy=Adaptive&hosts=bench.local&members=127.0.0.1:9001,127.0.0.1:9002'
 * </pre>
 *
 * Optional: {@code retry5xx=true}, {@code budgetPercent=N}, {@code requestMillis=N}, {@code
 * perTryMillis=N}, {@code hedgeMillis=N} or {@code hedgePercentile=P}, {@code appProtocol=...}.
 * /publish answers once every connected data plane ACKed (or after 10 s with 504). bench/lib/
 * common.sh starts it ({@code cptool}) and publishes through it ({@code publish}).
 */
public final class CpTool {
  /** The command line; {@code httpPort} as given, null when absent (the ready line prints it). */
  record Options(String token, int port, String httpPort) {
    static Options parse(String[] args) throws IOException {
      Map<String, String> a = FlagPairs.parse(args);
      String token = Files.readString(Path.of(a.get("token-file"))).strip();
      return new Options(
          token, Integer.parseInt(a.getOrDefault("port", "17000")), a.get("http-port"));
    }

    int httpPortToListen() {
      return Integer.parseInt(httpPort == null ? "17001" : httpPort);
    }
  }

  private final Vertx vertx;
  private final ControlPlaneServer cp;

  private CpTool(Vertx vertx, ControlPlaneServer cp) {
    this.vertx = vertx;
    this.cp = cp;
  }

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    Vertx vertx = Vertx.vertx();
    ControlPlaneServer cp =
        new ControlPlaneServer(
            vertx, new ControlPlaneServer.Options("127.0.0.1", o.port(), o.token()));
    cp.start().await();
    cp.markInitialSyncDone();
    CpTool tool = new CpTool(vertx, cp);
    vertx
        .createHttpServer()
        .requestHandler(tool::handle)
        .listen(o.httpPortToListen(), "127.0.0.1")
        .await();
    System.out.println("cptool ready: stream " + cp.port() + ", http " + o.httpPort());
    System.out.flush();
    Thread.currentThread().join();
  }

  private void handle(HttpServerRequest req) {
    if (!req.path().equals("/publish")) {
      req.response().setStatusCode(404).end("try /publish\n");
      return;
    }
    String pool = req.getParam("pool", "bench/p");
    if (!cp.publish(snapshot(req, pool))) {
      req.response().setStatusCode(409).end("refused\n");
      return;
    }
    answerWhenSynced(req, pool);
  }

  /** The pool the query describes, at the control plane's next version of it. */
  private PoolSnapshot snapshot(HttpServerRequest req, String pool) {
    RoutingPolicy policy = RoutingPolicy.valueOf(req.getParam("policy", "RoundRobin"));
    List<MemberSnapshot> members = members(req.getParam("members", ""));
    Retry retry = retry(req);
    Timeouts timeouts = timeouts(req);
    Hedging hedging = hedging(req);
    return PoolSnapshotBuilder.builder()
        .pool(pool)
        .version(cp.nextVersion(pool))
        .policy(policy)
        .retry(retry)
        .hosts(List.of(req.getParam("hosts", "bench.local").split(",")))
        .members(members)
        .appProtocol(req.getParam("appProtocol"))
        .timeouts(timeouts)
        .hedging(hedging)
        .idempotent(idempotent(req))
        .build();
  }

  /** {@code host:port,host:port}, each Healthy at weight 1. */
  private static List<MemberSnapshot> members(String csv) {
    List<MemberSnapshot> ms = new ArrayList<>();
    for (String m : csv.split(",")) {
      if (m.isBlank()) {
        continue;
      }
      String[] hp = m.split(":");
      ms.add(new MemberSnapshot(hp[0], Integer.parseInt(hp[1]), 1.0, MemberState.Healthy));
    }
    return ms;
  }

  private static Retry retry(HttpServerRequest req) {
    Retry retry = null;
    if ("true".equals(req.getParam("retry5xx"))) {
      retry = new Retry();
      retry.retryIdempotentOn5xx = true;
    }
    if (req.getParam("budgetPercent") != null) {
      retry = retry != null ? retry : new Retry();
      retry.budget = new RetryBudget();
      retry.budget.percent = Integer.parseInt(req.getParam("budgetPercent"));
    }
    return retry;
  }

  private static Timeouts timeouts(HttpServerRequest req) {
    Timeouts timeouts = new Timeouts();
    timeouts.requestMillis = longParam(req.getParam("requestMillis"));
    timeouts.perTryMillis = longParam(req.getParam("perTryMillis"));
    return timeouts;
  }

  private static Hedging hedging(HttpServerRequest req) {
    if (req.getParam("hedgeMillis") == null && req.getParam("hedgePercentile") == null) {
      return null;
    }
    Hedging hedging = new Hedging();
    hedging.delayMillis = longParam(req.getParam("hedgeMillis"));
    String p = req.getParam("hedgePercentile");
    hedging.delayPercentile = p == null ? null : Double.valueOf(p);
    return hedging;
  }

  /** Answers the sync state once every data plane ACKed or one NACKed; 504 after 10 s. */
  private void answerWhenSynced(HttpServerRequest req, String pool) {
    long deadline = System.currentTimeMillis() + 10_000;
    vertx.setPeriodic(
        5,
        id -> {
          var st = cp.syncState(pool);
          if (st.synced() || !st.nacks().isEmpty()) {
            vertx.cancelTimer(id);
            req.response().end(st + "\n");
          } else if (System.currentTimeMillis() > deadline) {
            vertx.cancelTimer(id);
            req.response().setStatusCode(504).end(st + "\n");
          }
        });
  }

  /** {@code grpcMethods=/pkg.Service/*,...}: the gRPC methods the pool may send twice. */
  private static Idempotent idempotent(HttpServerRequest req) {
    String grpc = req.getParam("grpcMethods");
    if (grpc == null) {
      return null;
    }
    Idempotent i = new Idempotent();
    i.grpcMethods = List.of(grpc.split(","));
    return i;
  }

  private static Long longParam(String v) {
    return v == null || v.isBlank() ? null : Long.valueOf(v);
  }
}
