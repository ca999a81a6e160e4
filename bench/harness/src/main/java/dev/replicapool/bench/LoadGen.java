package dev.replicapool.bench;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Open-loop HTTP load generator (what wrk2 does, which Debian lacks): requests are scheduled at a
 * fixed rate whatever the answers do, and each latency is measured from the request's <em>intended
 * </em> send time, so a stalled proxy cannot hide its stall (no coordinated omission). Keep-alive
 * connections, up to {@code --conns}; a request that waits for a connection waits on the clock.
 *
 * <pre>
 * LoadGen --port 8081 [--host-header bench.local] --rate 2000 --duration 10 [--warmup 2]
 *         [--conns 256] [--timeout-ms 10000] [--label dp] [--out results.jsonl]
 * </pre>
 *
 * Prints one line: label, rate, sent, ok, failed (non-2xx or I/O error), p50/p99/p99.9/max in ms,
 * answers per x-replica header, and failures by kind. Appends the same as JSON to --out.
 */
public final class LoadGen {
  public static void main(String[] args) throws Exception {
    Map<String, String> a = FlagPairs.parse(args);
    int port = Integer.parseInt(a.get("port"));
    String hostHeader = a.getOrDefault("host-header", "bench.local");
    double rate = Double.parseDouble(a.getOrDefault("rate", "1000"));
    double duration = Double.parseDouble(a.getOrDefault("duration", "10"));
    double warmup = Double.parseDouble(a.getOrDefault("warmup", "0"));
    int conns = Integer.parseInt(a.getOrDefault("conns", "256"));
    long timeoutMs = Long.parseLong(a.getOrDefault("timeout-ms", "10000"));
    String label = a.getOrDefault("label", "run");
    String path = a.getOrDefault("path", "/track/1");

    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    HttpClient client =
        vertx.createHttpClient(
            new HttpClientOptions().setKeepAlive(true).setConnectTimeout(2000),
            new PoolOptions().setHttp1MaxSize(conns));
    Histogram hist = new Histogram(3_600_000_000L, 3); // µs, up to 1 h
    TreeMap<String, Long> replicas = new TreeMap<>();
    TreeMap<String, Long> failures = new TreeMap<>();
    long[] counts = new long[3]; // sent, ok, failed (measured phase only)
    long[] outstanding = {0};
    CountDownLatch done = new CountDownLatch(1);
    long start = System.nanoTime();
    long measureFrom = start + (long) (warmup * 1e9);
    long total = (long) (rate * (warmup + duration));
    double intervalNs = 1e9 / rate;
    long[] next = {0}; // index of the next request to send

    vertx.runOnContext(
        v ->
            vertx.setPeriodic(
                1,
                id -> {
                  long now = System.nanoTime();
                  while (next[0] < total && start + (long) (next[0] * intervalNs) <= now) {
                    long intended = start + (long) (next[0] * intervalNs);
                    next[0]++;
                    boolean measured = intended >= measureFrom;
                    if (measured) {
                      counts[0]++;
                    }
                    outstanding[0]++;
                    client
                        .request(
                            new RequestOptions()
                                .setMethod(HttpMethod.GET)
                                .setHost("127.0.0.1")
                                .setPort(port)
                                .setURI(path)
                                .setIdleTimeout(timeoutMs)
                                .putHeader("Host", hostHeader))
                        .compose(req -> req.send())
                        .compose(
                            resp ->
                                resp.body()
                                    .map(
                                        b ->
                                            new String[] {
                                              String.valueOf(resp.statusCode()),
                                              resp.getHeader("x-replica")
                                            }))
                        .onComplete(
                            ar -> {
                              long lat = (System.nanoTime() - intended) / 1000;
                              if (measured) {
                                hist.recordValue(Math.max(1, Math.min(lat, 3_600_000_000L)));
                                if (ar.succeeded()) {
                                  int st = Integer.parseInt(ar.result()[0]);
                                  String r = ar.result()[1] == null ? "?" : ar.result()[1];
                                  replicas.merge(r, 1L, Long::sum);
                                  if (st >= 200 && st < 300) {
                                    counts[1]++;
                                  } else {
                                    counts[2]++;
                                    failures.merge("http_" + st, 1L, Long::sum);
                                  }
                                } else {
                                  counts[2]++;
                                  String k = ar.cause().getClass().getSimpleName();
                                  failures.merge(k, 1L, Long::sum);
                                }
                              }
                              outstanding[0]--;
                              if (next[0] >= total && outstanding[0] == 0) {
                                done.countDown();
                              }
                            });
                  }
                  if (next[0] >= total) {
                    vertx.cancelTimer(id);
                    if (outstanding[0] == 0) {
                      done.countDown();
                    }
                  }
                }));
    done.await((long) (warmup + duration) + timeoutMs / 1000 + 30, TimeUnit.SECONDS);
    double elapsed = (System.nanoTime() - start) / 1e9;
    String result =
        String.format(
            "{\"label\":\"%s\",\"rate\":%.0f,\"sent\":%d,\"ok\":%d,\"failed\":%d,"
                + "\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f,"
                + "\"replicas\":%s,\"failures\":%s,\"elapsed\":%.1f}",
            label,
            rate,
            counts[0],
            counts[1],
            counts[2],
            hist.getValueAtPercentile(50) / 1000.0,
            hist.getValueAtPercentile(90) / 1000.0,
            hist.getValueAtPercentile(99) / 1000.0,
            hist.getValueAtPercentile(99.9) / 1000.0,
            hist.getMaxValue() / 1000.0,
            json(replicas),
            json(failures),
            elapsed);
    System.out.println(result);
    if (a.containsKey("out")) {
      Files.writeString(
          Path.of(a.get("out")),
          result + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    }
    vertx.close().await();
  }

  static String json(Map<String, Long> m) {
    StringBuilder b = new StringBuilder("{");
    m.forEach((k, v) -> b.append(b.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
    return b.append('}').toString();
  }
}
