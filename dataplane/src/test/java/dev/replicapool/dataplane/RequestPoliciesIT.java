package dev.replicapool.dataplane;

import static dev.replicapool.dataplane.SnapshotBuilder.pool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.testing.OnEventLoop;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Per-pool timeouts, hedged requests, the retry budget and the in-flight limit with its queue,
 * against real member servers that stall, fail or are slow on purpose.
 */
class RequestPoliciesIT extends DataPlaneTestBase {
  static final String HOST = "policies.shop.example";

  static long millisSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000L;
  }

  /** One GET on a connection of its own, on a thread of its own. */
  CompletableFuture<RawHttp.Response> getAsync(String path) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
            return c.get(HOST, path);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        },
        pool);
  }

  final java.util.concurrent.ExecutorService pool =
      java.util.concurrent.Executors.newCachedThreadPool();

  @org.junit.jupiter.api.AfterEach
  void stopThreads() {
    pool.shutdownNow();
  }

  @Test
  void aStalledTryIsGivenUpAtThePerTryTimeoutAndRetriedElsewhere() throws Exception {
    TestMember stalled = member("stalled");
    stalled.delayMillis = 5_000;
    TestMember fine = member("fine");
    startDataPlane();
    publish(
        pool("shop/policies")
            .hosts(HOST)
            .timeouts(null, 150L, null)
            .members(stalled.snapshot(1), fine.snapshot(1)));
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      for (int i = 0; i < 4; i++) {
        long start = System.nanoTime();
        RawHttp.Response r = c.get(HOST, "/track/" + i);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("x-replica")).isEqualTo("fine");
        assertThat(millisSince(start)).as("at most one per-try timeout").isLessThan(2_000);
      }
    }
    // A request with a body is not sent twice: the client gets 504 at the per-try timeout.
    publish(
        pool("shop/policies").hosts(HOST).timeouts(null, 150L, null).members(stalled.snapshot(1)));
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      long start = System.nanoTime();
      RawHttp.Response r =
          c.send("POST /orders HTTP/1.1\r\nHost: " + HOST + "\r\nContent-Length: 2\r\n\r\nhi");
      long took = millisSince(start);
      assertThat(r.status()).isEqualTo(504);
      assertThat(r.body()).contains("did not answer within 150 ms");
      assertThat(took).isBetween(150L, 1_500L);
    }
  }

  @Test
  void theRequestTimeoutAnswers504AtItsDeadline() throws Exception {
    TestMember stalled = member("stalled");
    stalled.delayMillis = 5_000;
    startDataPlane();
    publish(
        pool("shop/policies").hosts(HOST).timeouts(300L, null, null).members(stalled.snapshot(1)));
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      long start = System.nanoTime();
      RawHttp.Response r = c.get(HOST, "/slow");
      long took = millisSince(start);
      assertThat(r.status()).isEqualTo(504);
      assertThat(r.body()).contains("request timeout of 300 ms");
      assertThat(took).isBetween(300L, 1_500L);
      // The connection still serves.
      stalled.delayMillis = 0;
      assertThat(c.get(HOST, "/fast").status()).isEqualTo(200);
    }
  }

  @Test
  void anIdempotentRequestIsHedgedOnAnotherMemberAndTheFirstAnswerWins() throws Exception {
    TestMember slow = member("slow");
    slow.delayMillis = 3_000;
    TestMember a = member("a");
    TestMember b = member("b");
    startDataPlane();
    publish(
        pool("shop/policies")
            .hosts(HOST)
            .hedgeAfterMillis(30, 1)
            .members(slow.snapshot(1), a.snapshot(1), b.snapshot(1)));
    long worst = 0;
    Map<String, Integer> counts;
    long start = System.nanoTime();
    counts = sequential(dp.trafficPort(), HOST, 30);
    worst = millisSince(start);
    assertThat(counts).containsOnlyKeys("a", "b");
    assertThat(counts.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(30);
    assertThat(worst).as("30 requests, none waiting out the slow member").isLessThan(3_000);
    assertThat(metric("replicapool_hedges_total", "outcome=\"won\"")).isGreaterThanOrEqualTo(10);
    // The hedged-out tries on the slow member were cancelled, not left waiting.
    await().atMost(WAIT).untilAsserted(() -> assertThat(slow.inflight.get()).isZero());
  }

  /** POST is not idempotent unless the pool names it: never hedged (bodies: HedgedBodiesIT). */
  @Test
  void aPostIsNeverHedged() throws Exception {
    TestMember slow = member("slow");
    slow.delayMillis = 400;
    TestMember other = member("other");
    startDataPlane();
    publish(
        pool("shop/policies")
            .policy(dev.replicapool.api.v1alpha1.RoutingPolicy.RoundRobin)
            .hosts(HOST)
            .hedgeAfterMillis(20, 1)
            .members(slow.snapshot(1), other.snapshot(0.0001)));
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      RawHttp.Response r =
          c.send("POST /pay HTTP/1.1\r\nHost: " + HOST + "\r\nContent-Length: 2\r\n\r\nhi");
      assertThat(r.status()).isEqualTo(200);
    }
    assertThat(slow.requests.get() + other.requests.get()).isEqualTo(1);
  }

  @Test
  void underA503StormTheBudgetKeepsTriesAtOnePointTwoPerRequest() throws Exception {
    List<TestMember> failing = new ArrayList<>();
    for (String n : List.of("f1", "f2", "f3")) {
      TestMember m = member(n);
      m.status = 503;
      failing.add(m);
    }
    startDataPlane();
    publish(
        storm("shop/policies", HOST)
            .members(
                failing.get(0).snapshot(1),
                failing.get(1).snapshot(1),
                failing.get(2).snapshot(1)));
    int requests = 1_000;
    Map<String, Integer> counts = sequential(dp.trafficPort(), HOST, requests);
    assertThat(counts).containsOnlyKeys("status 503");
    int tries = failing.stream().mapToInt(m -> m.heads.get()).sum();
    assertThat((double) tries / requests).isBetween(1.1, 1.2);
    assertThat(metric("replicapool_retry_budget_exhausted_total", "pool=\"shop/policies\""))
        .isGreaterThan(500);
  }

  /** A pool that retries a 5xx where it may, with a budget of 20 % (at least 1 a second). */
  static SnapshotBuilder storm(String pool, String host) {
    return pool(pool).hosts(host).retryOn5xx().retryBudget(20, 1);
  }

  /**
   * The same storm over HTTP/2 to members that speak it: the budget holds the same, and its
   * exhaustion is counted the same (an HTTP/2 stream's tries go out as an HTTP/1.x exchange's do).
   */
  @Test
  void overHttp2TheBudgetHoldsAndItsExhaustionIsCountedTheSame() throws Exception {
    List<CrashingMember> failing = new ArrayList<>();
    for (String n : List.of("g1", "g2", "g3")) {
      failing.add(new CrashingMember(vertx, n, CrashingMember.Mode.ANSWER_503).start());
    }
    HttpClient h2 = h2PriorKnowledge(vertx);
    try {
      startDataPlane();
      publish(
          storm("shop/h2policies", "h2policies.shop.example")
              .appProtocol("kubernetes.io/h2c")
              .members(
                  failing.get(0).snapshot(1),
                  failing.get(1).snapshot(1),
                  failing.get(2).snapshot(1)));
      RequestOptions o =
          new RequestOptions()
              .setServer(SocketAddress.inetSocketAddress(dp.trafficPort(), "127.0.0.1"))
              .setHost("h2policies.shop.example")
              .setPort(80)
              .setURI("/storm");
      int requests = 1_000;
      for (int i = 0; i < requests; i++) {
        int status =
            new OnEventLoop(vertx)
                .call(
                    () -> h2.request(o).compose(r -> r.send()).map(HttpClientResponse::statusCode))
                .await();
        assertThat(status).isEqualTo(503);
      }
      int tries = failing.stream().mapToInt(m -> m.seen.size()).sum();
      assertThat((double) tries / requests).isBetween(1.1, 1.2);
      assertThat(metric("replicapool_retry_budget_exhausted_total", "pool=\"shop/h2policies\""))
          .isGreaterThan(500);
    } finally {
      h2.close().await();
      failing.forEach(CrashingMember::stop);
    }
  }

  @Test
  void noMemberCarriesMoreThanTheLimitTheOverflowQueuesAndThenGets503() throws Exception {
    TestMember a = member("a");
    TestMember b = member("b");
    a.delayMillis = 300;
    b.delayMillis = 300;
    startDataPlane();
    publish(
        pool("shop/policies").hosts(HOST).limit(2, 4, 2_000).members(a.snapshot(1), b.snapshot(1)));
    List<CompletableFuture<RawHttp.Response>> all = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      all.add(getAsync("/q/" + i));
    }
    List<Integer> statuses = new ArrayList<>();
    for (CompletableFuture<RawHttp.Response> f : all) {
      statuses.add(f.get().status());
    }
    assertThat(a.maxInflight.get()).isLessThanOrEqualTo(2);
    assertThat(b.maxInflight.get()).isLessThanOrEqualTo(2);
    // 4 in flight, 4 waiting (served as slots free up), 4 refused at once.
    assertThat(statuses.stream().filter(s -> s == 200).count()).isEqualTo(8);
    assertThat(statuses.stream().filter(s -> s == 503).count()).isEqualTo(4);
    assertThat(metric("replicapool_queue_total", "outcome=\"overflow\"")).isEqualTo(4);
    assertThat(metric("replicapool_queue_total", "outcome=\"admitted\"")).isEqualTo(4);
  }

  @Test
  void aQueuedRequestGets503AtTheQueueTimeout() throws Exception {
    TestMember a = member("a");
    a.delayMillis = 3_000;
    startDataPlane();
    publish(pool("shop/policies").hosts(HOST).limit(1, 10, 200).members(a.snapshot(1)));
    CompletableFuture<RawHttp.Response> first = getAsync("/first");
    await().atMost(WAIT).until(() -> a.inflight.get() == 1);
    long start = System.nanoTime();
    RawHttp.Response waited = getAsync("/second").get();
    long took = millisSince(start);
    assertThat(waited.status()).isEqualTo(503);
    assertThat(waited.body())
        .contains("no member of pool shop/policies had a free slot within 200 ms");
    assertThat(took).isBetween(200L, 1_500L);
    assertThat(first.get().status()).isEqualTo(200);
    assertThat(a.maxInflight.get()).isEqualTo(1);
  }
}
