package dev.replicapool.dataplane;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.controlplane.ControlPlaneClient;
import dev.replicapool.controlplane.ControlPlaneServer;
import dev.replicapool.dataplane.proxy.ProxySettings;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.httpproxy.HttpProxy;
import io.vertx.httpproxy.OriginRequestProvider;
import io.vertx.httpproxy.ProxyContext;
import io.vertx.httpproxy.ProxyInterceptor;
import io.vertx.httpproxy.ProxyOptions;
import io.vertx.httpproxy.ProxyResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Throughput of the proxy paths on loopback, for docs/DATAPLANE.md: a direct connection, bare
 * vertx-http-proxy, a bare hand-written forwarder on vertx-core (same header work), and the whole
 * ReplicaPool data plane. Everything shares the machine's cores (client, proxy, member each on one
 * event loop), so the numbers compare CPU cost per request rather than absolute capacity.
 *
 * <p>Run: {@code mvn -o -pl dataplane verify -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false
 * -Dit.test=ProxyBenchmarkIT -Dbench=true}
 */
@EnabledIfSystemProperty(named = "bench", matches = "true")
class ProxyBenchmarkIT {
  static final Set<String> HOP =
      Set.of(
          "connection",
          "keep-alive",
          "proxy-connection",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade");
  static final int CONCURRENCY = Integer.getInteger("bench.concurrency", 32);
  static final long MILLIS = Long.getLong("bench.millis", 4000);
  static final int ROUNDS = Integer.getInteger("bench.rounds", 5);

  record Result(double rps, double p50Micros, double p99Micros, long errors) {}

  @Test
  @Timeout(value = 10, unit = TimeUnit.MINUTES)
  void compareProxyPaths() throws Exception {
    Vertx memberVertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    Vertx proxyVertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    Vertx dpVertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    Vertx clientVertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    Buffer body = Buffer.buffer("{\"replica\":\"k1\",\"tracking\":\"ok\"}");
    int member =
        memberVertx
            .createHttpServer()
            .requestHandler(
                r ->
                    r.response()
                        .putHeader("x-replica", "k1")
                        .putHeader("content-type", "application/json")
                        .end(body))
            .listen(0, "127.0.0.1")
            .await()
            .actualPort();
    SocketAddress origin = SocketAddress.inetSocketAddress(member, "127.0.0.1");
    HttpClient upstream =
        proxyVertx.createHttpClient(
            new HttpClientOptions().setKeepAlive(true), new PoolOptions().setHttp1MaxSize(64));

    HttpProxy bare =
        HttpProxy.reverseProxy(new ProxyOptions(), upstream)
            .origin(OriginRequestProvider.fixedAddress(origin));
    bare.addInterceptor(
        new ProxyInterceptor() {
          @Override
          public Future<ProxyResponse> handleProxyRequest(ProxyContext c) {
            c.request()
                .headers()
                .set("x-forwarded-for", c.request().proxiedRequest().remoteAddress().hostAddress());
            return c.sendRequest();
          }
        });
    int bareProxy =
        proxyVertx
            .createHttpServer()
            .requestHandler(bare)
            .listen(0, "127.0.0.1")
            .await()
            .actualPort();
    int handWritten =
        proxyVertx
            .createHttpServer()
            .requestHandler(req -> forward(req, upstream, origin))
            .listen(0, "127.0.0.1")
            .await()
            .actualPort();

    ControlPlaneServer cp =
        new ControlPlaneServer(
            clientVertx, new ControlPlaneServer.Options("127.0.0.1", 0, "bench"));
    cp.start().await();
    DataPlane dp =
        DataPlane.start(
                dpVertx,
                new DataPlane.Config(
                    ControlPlaneClient.Options.of("127.0.0.1", cp.port(), "bench", "bench"),
                    ProxySettings.defaults().withListen("127.0.0.1", 0, -1).withInstances(1),
                    "127.0.0.1",
                    0))
            .await();
    cp.publish(
        new PoolSnapshot(
            "bench/pool",
            cp.nextVersion("bench/pool"),
            RoutingPolicy.RoundRobin,
            null,
            null,
            null,
            List.of("127.0.0.1"),
            null,
            null,
            List.of(new MemberSnapshot("127.0.0.1", member, 1, MemberState.Healthy))));
    org.awaitility.Awaitility.await().until(() -> cp.syncState("bench/pool").synced());

    Map<String, Integer> targets = new LinkedHashMap<>();
    targets.put("direct", member);
    targets.put("vertx-http-proxy (bare)", bareProxy);
    targets.put("hand-written vertx-core (bare)", handWritten);
    targets.put("ReplicaPool data plane", dp.trafficPort());
    Map<String, List<Result>> results = new LinkedHashMap<>();
    targets.keySet().forEach(k -> results.put(k, new ArrayList<>()));
    List<String> names = new ArrayList<>(targets.keySet());
    for (String n : names) {
      run(clientVertx, targets.get(n), 1000); // warm-up
    }
    for (int round = 0; round < ROUNDS; round++) {
      List<String> order = new ArrayList<>(names);
      if (round % 2 == 1) {
        java.util.Collections.reverse(order);
      }
      for (String n : order) {
        results.get(n).add(run(clientVertx, targets.get(n), MILLIS));
      }
    }
    System.out.printf(
        "%nconcurrency %d, %d rounds of %d ms, medians%n", CONCURRENCY, ROUNDS, MILLIS);
    System.out.printf(
        "| path | req/s | p50 µs | p99 µs | errors |%n| --- | --- | --- | --- | --- |%n");
    for (String n : names) {
      List<Result> rs = results.get(n);
      System.out.printf(
          "| %s | %.0f | %.0f | %.0f | %d |   (req/s per round: %s)%n",
          n,
          median(rs.stream().mapToDouble(Result::rps).toArray()),
          median(rs.stream().mapToDouble(Result::p50Micros).toArray()),
          median(rs.stream().mapToDouble(Result::p99Micros).toArray()),
          rs.stream().mapToLong(Result::errors).sum(),
          rs.stream().map(r -> String.valueOf(Math.round(r.rps()))).toList());
    }
    dp.stop().await();
    for (Vertx v : List.of(memberVertx, proxyVertx, dpVertx, clientVertx)) {
      v.close().await();
    }
  }

  /** The smallest faithful hand-written forwarder: same hop-by-hop and X-Forwarded-For work. */
  static void forward(HttpServerRequest req, HttpClient upstream, SocketAddress origin) {
    req.pause();
    upstream
        .request(new RequestOptions().setServer(origin).setMethod(req.method()).setURI(req.uri()))
        .onComplete(
            ar -> {
              if (ar.failed()) {
                req.resume();
                req.response().setStatusCode(502).end();
                return;
              }
              HttpClientRequest creq = ar.result();
              req.headers()
                  .forEach(
                      e -> {
                        if (!HOP.contains(e.getKey().toLowerCase())) {
                          creq.headers().add(e.getKey(), e.getValue());
                        }
                      });
              creq.headers().set("x-forwarded-for", req.remoteAddress().hostAddress());
              creq.send(req)
                  .onComplete(
                      rr -> {
                        if (rr.failed()) {
                          req.response().setStatusCode(502).end();
                          return;
                        }
                        HttpClientResponse cres = rr.result();
                        HttpServerResponse sres = req.response().setStatusCode(cres.statusCode());
                        cres.headers()
                            .forEach(
                                e -> {
                                  if (!HOP.contains(e.getKey().toLowerCase())) {
                                    sres.headers().add(e.getKey(), e.getValue());
                                  }
                                });
                        cres.pipeTo(sres);
                      });
            });
  }

  static Result run(Vertx vertx, int port, long millis) throws InterruptedException {
    HttpClient c =
        vertx.createHttpClient(
            new HttpClientOptions().setKeepAlive(true),
            new PoolOptions().setHttp1MaxSize(CONCURRENCY));
    long[] lat = new long[4_000_000];
    AtomicInteger n = new AtomicInteger();
    AtomicLong errors = new AtomicLong();
    long end = System.nanoTime() + millis * 1_000_000L;
    CountDownLatch done = new CountDownLatch(CONCURRENCY);
    for (int i = 0; i < CONCURRENCY; i++) {
      vertx.runOnContext(v -> loop(c, port, end, lat, n, errors, done));
    }
    done.await(millis + 30_000, TimeUnit.MILLISECONDS);
    c.close().await();
    int count = Math.min(n.get(), lat.length);
    long[] sorted = Arrays.copyOf(lat, count);
    Arrays.sort(sorted);
    return new Result(
        n.get() * 1000.0 / millis,
        sorted[count / 2] / 1000.0,
        sorted[(int) (count * 0.99)] / 1000.0,
        errors.get());
  }

  static void loop(
      HttpClient c,
      int port,
      long end,
      long[] lat,
      AtomicInteger n,
      AtomicLong errors,
      CountDownLatch done) {
    if (System.nanoTime() > end) {
      done.countDown();
      return;
    }
    long t0 = System.nanoTime();
    c.request(
            new RequestOptions()
                .setServer(SocketAddress.inetSocketAddress(port, "127.0.0.1"))
                .setHost("127.0.0.1")
                .setPort(port)
                .setURI("/track/1"))
        .compose(r -> r.send().compose(resp -> resp.body().map(b -> resp.statusCode())))
        .onComplete(
            ar -> {
              if (ar.failed() || ar.result() != 200) {
                errors.incrementAndGet();
              }
              int i = n.getAndIncrement();
              if (i < lat.length) {
                lat[i] = System.nanoTime() - t0;
              }
              loop(c, port, end, lat, n, errors, done);
            });
  }

  static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
