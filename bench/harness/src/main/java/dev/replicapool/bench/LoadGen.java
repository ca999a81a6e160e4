package dev.replicapool.bench;

import io.vertx.core.AsyncResult;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
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
 * bench/proxy/run.sh and bench/faults/run.sh run it; bench/plot.py reads the lines.
 *
 * <p>One run is one instance; every field below {@code done} is touched only on the single event
 * loop, and read by {@link #main} after {@code done} opened.
 */
public final class LoadGen {
  private static final long MAX_LATENCY_MICROS = 3_600_000_000L; // 1 h

  /** What one run sends, for how long, and where its result line goes (null: printed only). */
  record Options(
      int port,
      String hostHeader,
      double rate,
      double duration,
      double warmup,
      int conns,
      long timeoutMs,
      String label,
      String path,
      String out) {
    static Options parse(String[] args) throws IOException {
      Map<String, String> a = FlagPairs.parse(args);
      return new Options(
          Integer.parseInt(a.get("port")),
          a.getOrDefault("host-header", "bench.local"),
          Double.parseDouble(a.getOrDefault("rate", "1000")),
          Double.parseDouble(a.getOrDefault("duration", "10")),
          Double.parseDouble(a.getOrDefault("warmup", "0")),
          Integer.parseInt(a.getOrDefault("conns", "256")),
          Long.parseLong(a.getOrDefault("timeout-ms", "10000")),
          a.getOrDefault("label", "run"),
          a.getOrDefault("path", "/track/1"),
          a.get("out"));
    }
  }

  private final Options o;
  private final Vertx vertx;
  private final HttpClient client;
  private final Histogram hist = new Histogram(MAX_LATENCY_MICROS, 3); // µs
  private final TreeMap<String, Long> replicas = new TreeMap<>();
  private final TreeMap<String, Long> failures = new TreeMap<>();
  private final CountDownLatch done = new CountDownLatch(1);
  private final long start;
  private final long measureFrom;
  private final long total;
  private final double intervalNs;
  // the measured phase only
  private long sent;
  private long ok;
  private long failed;
  private long outstanding;
  private long next; // index of the next request to send

  private LoadGen(Options o, Vertx vertx) {
    this.o = o;
    this.vertx = vertx;
    this.client =
        vertx.createHttpClient(
            new HttpClientOptions().setKeepAlive(true).setConnectTimeout(2000),
            new PoolOptions().setHttp1MaxSize(o.conns()));
    this.start = System.nanoTime();
    this.measureFrom = start + (long) (o.warmup() * 1e9);
    this.total = (long) (o.rate() * (o.warmup() + o.duration()));
    this.intervalNs = 1e9 / o.rate();
  }

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    LoadGen run = new LoadGen(o, vertx);
    vertx.runOnContext(v -> vertx.setPeriodic(1, run::sendDue));
    run.done.await(
        (long) (o.warmup() + o.duration()) + o.timeoutMs() / 1000 + 30, TimeUnit.SECONDS);
    double elapsed = (System.nanoTime() - run.start) / 1e9;
    String result = run.result(elapsed);
    System.out.println(result);
    if (o.out() != null) {
      Files.writeString(
          Path.of(o.out()),
          result + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    }
    vertx.close().await();
  }

  /** Every millisecond: sends the requests whose intended time has come. */
  private void sendDue(long timerId) {
    long now = System.nanoTime();
    while (next < total && intendedAt(next) <= now) {
      long intended = intendedAt(next);
      next++;
      send(intended, intended >= measureFrom);
    }
    if (next >= total) {
      vertx.cancelTimer(timerId);
      if (outstanding == 0) {
        done.countDown();
      }
    }
  }

  private long intendedAt(long index) {
    return start + (long) (index * intervalNs);
  }

  private void send(long intended, boolean measured) {
    if (measured) {
      sent++;
    }
    outstanding++;
    client
        .request(
            new RequestOptions()
                .setMethod(HttpMethod.GET)
                .setHost("127.0.0.1")
                .setPort(o.port())
                .setURI(o.path())
                .setIdleTimeout(o.timeoutMs())
                .putHeader("Host", o.hostHeader()))
        .compose(req -> req.send())
        .compose(
            resp ->
                resp.body()
                    .map(
                        b ->
                            new String[] {
                              String.valueOf(resp.statusCode()), resp.getHeader("x-replica")
                            }))
        .onComplete(ar -> answered(ar, intended, measured));
  }

  /** {@code ar} holds the status code and the x-replica header of the answer. */
  private void answered(AsyncResult<String[]> ar, long intended, boolean measured) {
    long lat = (System.nanoTime() - intended) / 1000;
    if (measured) {
      record(ar, lat);
    }
    outstanding--;
    if (next >= total && outstanding == 0) {
      done.countDown();
    }
  }

  private void record(AsyncResult<String[]> ar, long latencyMicros) {
    hist.recordValue(Math.max(1, Math.min(latencyMicros, MAX_LATENCY_MICROS)));
    if (ar.succeeded()) {
      int st = Integer.parseInt(ar.result()[0]);
      String r = ar.result()[1] == null ? "?" : ar.result()[1];
      replicas.merge(r, 1L, Long::sum);
      if (st >= 200 && st < 300) {
        ok++;
      } else {
        failed++;
        failures.merge("http_" + st, 1L, Long::sum);
      }
    } else {
      failed++;
      String k = ar.cause().getClass().getSimpleName();
      failures.merge(k, 1L, Long::sum);
    }
  }

  /** The result line, one JSON object (bench/plot.py reads these fields). */
  private String result(double elapsed) {
    return String.format(
        "{\"label\":\"%s\",\"rate\":%.0f,\"sent\":%d,\"ok\":%d,\"failed\":%d,"
            + "\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f,"
            + "\"replicas\":%s,\"failures\":%s,\"elapsed\":%.1f}",
        o.label(),
        o.rate(),
        sent,
        ok,
        failed,
        hist.getValueAtPercentile(50) / 1000.0,
        hist.getValueAtPercentile(90) / 1000.0,
        hist.getValueAtPercentile(99) / 1000.0,
        hist.getValueAtPercentile(99.9) / 1000.0,
        hist.getMaxValue() / 1000.0,
        json(replicas),
        json(failures),
        elapsed);
  }

  static String json(Map<String, Long> m) {
    StringBuilder b = new StringBuilder("{");
    m.forEach(
        (k, v) ->
            b.append(b.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
    return b.append('}').toString();
  }
}
