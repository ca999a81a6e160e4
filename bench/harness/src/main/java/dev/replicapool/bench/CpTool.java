package dev.replicapool.bench;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.Hedging;
import dev.replicapool.api.v1alpha1.Retry;
import dev.replicapool.api.v1alpha1.RetryBudget;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.v1alpha1.Timeouts;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.controlplane.ControlPlaneServer;
import io.vertx.core.Vertx;
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
 * /publish answers once every connected data plane ACKed (or after 10 s with 504).
 */
public final class CpTool {
  public static void main(String[] args) throws Exception {
    Map<String, String> a = FlagPairs.parse(args);
    String token = Files.readString(Path.of(a.get("token-file"))).strip();
    Vertx vertx = Vertx.vertx();
    ControlPlaneServer cp =
        new ControlPlaneServer(
            vertx,
            new ControlPlaneServer.Options(
                "127.0.0.1", Integer.parseInt(a.getOrDefault("port", "17000")), token));
    cp.start().await();
    cp.markInitialSyncDone();
    vertx
        .createHttpServer()
        .requestHandler(
            req -> {
              if (!req.path().equals("/publish")) {
                req.response().setStatusCode(404).end("try /publish\n");
                return;
              }
              String pool = req.getParam("pool", "bench/p");
              RoutingPolicy policy = RoutingPolicy.valueOf(req.getParam("policy", "RoundRobin"));
              List<MemberSnapshot> ms = new ArrayList<>();
              for (String m : req.getParam("members", "").split(",")) {
                if (m.isBlank()) {
                  continue;
                }
                String[] hp = m.split(":");
                ms.add(
                    new MemberSnapshot(hp[0], Integer.parseInt(hp[1]), 1.0, MemberState.Healthy));
              }
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
              Timeouts timeouts = new Timeouts();
              timeouts.requestMillis = longParam(req.getParam("requestMillis"));
              timeouts.perTryMillis = longParam(req.getParam("perTryMillis"));
              Hedging hedging = null;
              if (req.getParam("hedgeMillis") != null || req.getParam("hedgePercentile") != null) {
                hedging = new Hedging();
                hedging.delayMillis = longParam(req.getParam("hedgeMillis"));
                String p = req.getParam("hedgePercentile");
                hedging.delayPercentile = p == null ? null : Double.valueOf(p);
              }
              PoolSnapshot s =
                  new PoolSnapshot(
                      pool,
                      cp.nextVersion(pool),
                      policy,
                      null,
                      null,
                      retry,
                      List.of(req.getParam("hosts", "bench.local").split(",")),
                      null,
                      null,
                      ms,
                      req.getParam("appProtocol"),
                      null,
                      null,
                      null,
                      timeouts,
                      hedging,
                      null,
                      null,
                      null);
              if (!cp.publish(s)) {
                req.response().setStatusCode(409).end("refused\n");
                return;
              }
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
            })
        .listen(Integer.parseInt(a.getOrDefault("http-port", "17001")), "127.0.0.1")
        .await();
    System.out.println("cptool ready: stream " + cp.port() + ", http " + a.get("http-port"));
    System.out.flush();
    Thread.currentThread().join();
  }

  private static Long longParam(String v) {
    return v == null || v.isBlank() ? null : Long.valueOf(v);
  }
}
