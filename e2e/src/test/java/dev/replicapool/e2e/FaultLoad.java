package dev.replicapool.e2e;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Steady load through a data plane: a request every {@code periodMillis} on a Vert.x timer, at most
 * {@code concurrency} in flight, over kept-alive connections, until {@link #stop} or {@code
 * maxRequests}. Bounded in count and time; nothing sleeps. Counts answers by replica (the {@code
 * x-replica} header) and failures (anything but a 2xx, or no answer within the request timeout) by
 * reason.
 */
final class FaultLoad implements AutoCloseable {
  private final Vertx vertx;
  private final HttpClient http;
  private final int port;
  private final String host;
  private final int concurrency;
  private final int maxRequests;
  private final long requestTimeoutMillis;
  private final long timer;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private final long startNanos = System.nanoTime();
  private volatile boolean stopping;

  // Touched on the load's own event loop only, read after done.
  private volatile int sent;
  private volatile int ok;
  private final Map<String, Integer> byReplica = new TreeMap<>();
  private final Map<String, Integer> failures = new TreeMap<>();
  private final List<String> failureLog = Collections.synchronizedList(new ArrayList<>());
  private final List<Long> latencyMillis = new ArrayList<>();

  private FaultLoad(
      Vertx vertx,
      int port,
      String host,
      long periodMillis,
      int concurrency,
      int maxRequests,
      long requestTimeoutMillis) {
    this.vertx = vertx;
    this.port = port;
    this.host = host;
    this.concurrency = concurrency;
    this.maxRequests = maxRequests;
    this.requestTimeoutMillis = requestTimeoutMillis;
    this.http =
        vertx.createHttpClient(
            new HttpClientOptions().setKeepAlive(true),
            new PoolOptions().setHttp1MaxSize(concurrency));
    this.timer = vertx.setPeriodic(periodMillis, id -> tick());
  }

  /**
   * Starts the load on a Vert.x instance of its own (so that the data plane under test and the
   * client do not share event loops).
   */
  static FaultLoad start(
      Vertx vertx,
      int port,
      String host,
      long periodMillis,
      int concurrency,
      int maxRequests,
      long requestTimeoutMillis) {
    FaultLoad[] holder = new FaultLoad[1];
    CompletableFuture<FaultLoad> started = new CompletableFuture<>();
    vertx.runOnContext(
        v -> {
          holder[0] =
              new FaultLoad(
                  vertx, port, host, periodMillis, concurrency, maxRequests, requestTimeoutMillis);
          started.complete(holder[0]);
        });
    try {
      return started.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  private void tick() {
    if (stopping || sent >= maxRequests) {
      finishIfIdle();
      return;
    }
    if (inFlight.get() >= concurrency) {
      return;
    }
    int n = sent++;
    inFlight.incrementAndGet();
    long t0 = System.nanoTime();
    http.request(
            new RequestOptions()
                .setMethod(HttpMethod.GET)
                .setHost("127.0.0.1")
                .setPort(port)
                .setURI("/track/" + n)
                .putHeader("Host", host)
                .setIdleTimeout(requestTimeoutMillis))
        .compose(req -> req.send())
        .compose(resp -> resp.body().map(b -> resp))
        .onComplete(
            ar -> {
              inFlight.decrementAndGet();
              long ms = (System.nanoTime() - t0) / 1_000_000;
              latencyMillis.add(ms);
              if (ar.succeeded() && ar.result().statusCode() / 100 == 2) {
                ok++;
                byReplica.merge(
                    String.valueOf(ar.result().getHeader("x-replica")), 1, Integer::sum);
              } else {
                String why =
                    ar.succeeded()
                        ? "status " + ar.result().statusCode()
                        : ar.cause().getClass().getSimpleName();
                failures.merge(why, 1, Integer::sum);
                failureLog.add(
                    String.format(
                        "request %d at +%d ms: %s after %d ms%s",
                        n,
                        (System.nanoTime() - startNanos) / 1_000_000,
                        why,
                        ms,
                        ar.failed() ? " (" + ar.cause().getMessage() + ")" : ""));
              }
              if (stopping || sent >= maxRequests) {
                finishIfIdle();
              }
            });
  }

  private void finishIfIdle() {
    if (inFlight.get() == 0 && !done.isDone()) {
      vertx.cancelTimer(timer);
      http.close();
      done.complete(null);
    }
  }

  /** Requests sent so far (approximate while running). */
  int sent() {
    return sent;
  }

  int ok() {
    return ok;
  }

  /** Requests that failed so far (approximate while running). */
  int failedSoFar() {
    return failureLog.size();
  }

  /** Answers by replica so far, read on the load's event loop. */
  Map<String, Integer> byReplicaNow() {
    CompletableFuture<Map<String, Integer>> r = new CompletableFuture<>();
    vertx.runOnContext(v -> r.complete(new TreeMap<>(byReplica)));
    try {
      return r.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Stops sending, waits for the requests in flight, returns the figures. */
  Result stop() {
    stopping = true;
    vertx.runOnContext(v -> finishIfIdle());
    try {
      done.get(requestTimeoutMillis + 10_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      throw new AssertionError("load did not finish its requests in flight", e);
    }
    CompletableFuture<Result> r = new CompletableFuture<>();
    vertx.runOnContext(
        v ->
            r.complete(
                new Result(
                    sent,
                    ok,
                    new TreeMap<>(byReplica),
                    new TreeMap<>(failures),
                    List.copyOf(failureLog),
                    Duration.ofNanos(System.nanoTime() - startNanos),
                    List.copyOf(latencyMillis))));
    try {
      return r.get(10, TimeUnit.SECONDS);
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    if (!done.isDone()) {
      stop();
    }
  }

  /** What the load saw. */
  record Result(
      int sent,
      int ok,
      Map<String, Integer> byReplica,
      Map<String, Integer> failures,
      List<String> failureLog,
      Duration took,
      List<Long> latencyMillis) {
    int failed() {
      return sent - ok;
    }

    /** The given percentile of the answers' times (failed ones included), in milliseconds. */
    long percentileMillis(double p) {
      List<Long> sorted = latencyMillis.stream().sorted().toList();
      if (sorted.isEmpty()) {
        return 0;
      }
      int i = (int) Math.ceil(sorted.size() * p / 100.0) - 1;
      return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }

    @Override
    public String toString() {
      return String.format(
          "%d/%d failed in %.1f s %s by replica %s%s",
          failed(),
          sent,
          took.toMillis() / 1000.0,
          failures,
          byReplica,
          failureLog.isEmpty()
              ? ""
              : "; first failures: " + failureLog.subList(0, Math.min(5, failureLog.size())));
    }
  }
}
