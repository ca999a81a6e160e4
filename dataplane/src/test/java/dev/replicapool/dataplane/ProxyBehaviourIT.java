package dev.replicapool.dataplane;

import static dev.replicapool.dataplane.SnapshotBuilder.pool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.testing.OnEventLoop;
import dev.replicapool.testing.RefusedPort;
import dev.replicapool.testing.ReplicaProcess;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ProxyBehaviourIT extends DataPlaneTestBase {

  @Test
  void unknownHostIs404AndAPoolWithoutRoutableMembersIs503() throws Exception {
    TestMember k1 = member("k1");
    startDataPlane();
    publish(pool("shop/empty").hosts("empty.shop.example").members(k1.snapshot(0)));
    publish(pool("shop/none").hosts("none.shop.example"));

    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      RawHttp.Response unknown = c.get("nobody.example", "/");
      assertThat(unknown.status()).isEqualTo(404);
      assertThat(unknown.body()).contains("no pool matches host nobody.example");
      RawHttp.Response empty = c.get("empty.shop.example", "/");
      assertThat(empty.status()).isEqualTo(503);
      assertThat(empty.body()).contains("no routable member in pool shop/empty");
      RawHttp.Response none = c.get("none.shop.example:8080", "/");
      assertThat(none.status()).isEqualTo(503);
      assertThat(none.body()).contains("shop/none");
      // Still the same connection, still serving.
      assertThat(c.get("NOBODY.example.", "/").status()).isEqualTo(404);
    }
    assertThat(k1.requests.get()).isZero();
  }

  /**
   * A member address that is the proxy's own port: the forwarded request comes back with this data
   * plane's Via and is answered 508 at once, instead of each pass opening one more upstream request
   * until the upstream timeout. Members see the Via header.
   */
  @Test
  void aMemberThatLeadsBackToTheProxyIs508NotALoop() throws Exception {
    TestMember k1 = member("k1");
    startDataPlane();
    publish(
        pool("shop/loop")
            .hosts("loop.shop.example")
            .members(new MemberSnapshot("127.0.0.1", dp.trafficPort(), 1.0, MemberState.Healthy)));
    publish(pool("shop/ok").hosts("ok.shop.example").members(k1.snapshot(1)));
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      long start = System.nanoTime();
      RawHttp.Response looped = c.get("loop.shop.example", "/");
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertThat(looped.status()).isEqualTo(508);
      assertThat(looped.body()).contains("request loop").contains("shop/loop");
      assertThat(millis).as("answered at once, not at a timeout").isLessThan(5_000L);
      RawHttp.Response ok = c.get("ok.shop.example", "/");
      assertThat(ok.status()).isEqualTo(200);
    }
    assertThat(k1.headersSeen.get(0).get("via")).startsWith("1.1 replicapool-");
  }

  @Test
  void wildcardHostsMatchSubdomainsAndExactHostsWin() throws Exception {
    TestMember wild = member("wild");
    TestMember exact = member("exact");
    startDataPlane();
    publish(pool("shop/wild").hosts("*.shop.example").members(wild.snapshot(1)));
    publish(pool("shop/exact").hosts("api.shop.example").members(exact.snapshot(1)));

    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      assertThat(c.get("a.shop.example", "/").header("x-replica")).isEqualTo("wild");
      assertThat(c.get("x.y.shop.example", "/").header("x-replica")).isEqualTo("wild");
      assertThat(c.get("api.shop.example", "/").header("x-replica")).isEqualTo("exact");
      assertThat(c.get("shop.example", "/").status()).isEqualTo(404);
    }
  }

  @Test
  void forwardedHeadersAreSetAndHopByHopHeadersDropped() throws Exception {
    TestMember k1 = member("k1");
    startDataPlane();
    publish(pool("shop/tracking").hosts("tracking.shop.example").members(k1.snapshot(1)));

    RawHttp.Response r;
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      r =
          c.send(
              "GET /track/7?x=1 HTTP/1.1\r\n"
                  + "Host: tracking.shop.example\r\n"
                  + "X-Forwarded-For: 10.9.8.7\r\n"
                  + "Connection: keep-alive, x-secret-hop\r\n"
                  + "X-Secret-Hop: drop me\r\n"
                  + "Keep-Alive: timeout=5\r\n"
                  + "Proxy-Connection: keep-alive\r\n"
                  + "X-Custom: kept\r\n\r\n");
    }
    assertThat(r.status()).isEqualTo(200);
    MultiMap seen = k1.headersSeen.get(0);
    assertThat(seen.get("host")).isEqualTo("tracking.shop.example");
    assertThat(seen.get("x-forwarded-for")).isEqualTo("10.9.8.7, 127.0.0.1");
    assertThat(seen.get("x-forwarded-proto")).isEqualTo("http");
    assertThat(seen.get("x-forwarded-host")).isEqualTo("tracking.shop.example");
    assertThat(seen.get("x-custom")).isEqualTo("kept");
    assertThat(seen.contains("x-secret-hop")).isFalse();
    assertThat(seen.contains("keep-alive")).isFalse();
    assertThat(seen.contains("proxy-connection")).isFalse();
    // The member's own hop-by-hop headers do not reach the client either.
    assertThat(r.header("x-hop")).isNull();
    assertThat(r.header("keep-alive")).isNull();
    assertThat(r.header("x-replica")).isEqualTo("k1");
    assertThat(r.body()).contains("\"tracking\":\"ok\"");
  }

  @Test
  void malformedAndOversizedRequestsGet4xxAndTheProxyKeepsServing() throws Exception {
    TestMember k1 = member("k1");
    startDataPlane(settings().withLimits(1024, 2048, 1000));
    publish(pool("shop/tracking").hosts("tracking.shop.example").members(k1.snapshot(1)));
    int port = dp.trafficPort();

    try (RawHttp c = RawHttp.connect(port)) {
      // after a request: as the first line it would be an invalid HTTP/2 preface, closed
      // unanswered (ClientConnectionsIT)
      assertThat(c.get("tracking.shop.example", "/").status()).isEqualTo(200);
      assertThat(c.send("THIS IS NOT HTTP\r\n\r\n").status()).isEqualTo(400);
    }
    try (RawHttp c = RawHttp.connect(port)) {
      String longUri = "/" + "a".repeat(2000);
      assertThat(c.get("tracking.shop.example", longUri).status()).isIn(400, 414);
    }
    try (RawHttp c = RawHttp.connect(port)) {
      String big = "X-Big: " + "b".repeat(4000) + "\r\n";
      RawHttp.Response r =
          c.send("GET / HTTP/1.1\r\nHost: tracking.shop.example\r\n" + big + "\r\n");
      assertThat(r.status()).isEqualTo(431);
    }
    try (RawHttp c = RawHttp.connect(port)) {
      RawHttp.Response r =
          c.send(
              "POST /upload HTTP/1.1\r\nHost: tracking.shop.example\r\nContent-Length: 5000\r\n\r\n");
      assertThat(r.status()).isEqualTo(413);
      assertThat(c.closedByPeer()).isTrue();
    }
    try (RawHttp c = RawHttp.connect(port)) {
      RawHttp.Response r =
          c.send(
              "POST /upload HTTP/1.1\r\nHost: tracking.shop.example\r\nContent-Length: nope\r\n\r\n");
      assertThat(r.status()).isEqualTo(400);
    }
    try (RawHttp c = RawHttp.connect(port)) {
      String chunk = Integer.toHexString(800) + "\r\n" + "c".repeat(800) + "\r\n";
      RawHttp.Response r =
          c.send(
              "POST /upload HTTP/1.1\r\nHost: tracking.shop.example\r\nTransfer-Encoding: chunked\r\n\r\n"
                  + chunk
                  + chunk
                  + "0\r\n\r\n");
      assertThat(r.status()).isEqualTo(413);
    }
    // Expect: 100-continue is answered by the proxy; the body then reaches the member.
    try (RawHttp c = RawHttp.connect(port)) {
      RawHttp.Response cont =
          c.send(
              "POST /upload HTTP/1.1\r\nHost: tracking.shop.example\r\nContent-Length: 4\r\n"
                  + "Expect: 100-continue\r\n\r\n");
      assertThat(cont.status()).isEqualTo(100);
      RawHttp.Response r = c.send("body");
      assertThat(r.status()).isEqualTo(200);
      assertThat(k1.headersSeen.get(k1.headersSeen.size() - 1).contains("expect")).isFalse();
    }
    // A body within the limit goes through, and so does everything after the bad ones.
    try (RawHttp c = RawHttp.connect(port)) {
      RawHttp.Response r =
          c.send(
              "POST /upload HTTP/1.1\r\nHost: tracking.shop.example\r\nContent-Length: 5\r\n\r\nhello");
      assertThat(r.status()).isEqualTo(200);
      assertThat(c.get("tracking.shop.example", "/").status()).isEqualTo(200);
    }
    assertThat(k1.bodiesSeen).contains("hello");
    assertThat(k1.bodiesSeen).noneMatch(b -> b.contains("ccc"));
  }

  @Test
  void h2cInboundWorksForBodylessAndBodyRequests() throws Exception {
    TestMember k1 = member("k1");
    startDataPlane();
    publish(pool("shop/tracking").hosts("tracking.shop.example").members(k1.snapshot(1)));
    HttpClient h2 = h2PriorKnowledge(vertx);
    OnEventLoop loop = new OnEventLoop(vertx);
    RequestOptions get =
        new RequestOptions()
            .setServer(SocketAddress.inetSocketAddress(dp.trafficPort(), "127.0.0.1"))
            .setHost("tracking.shop.example")
            .setPort(80)
            .setURI("/track/1");
    // Read each body in the same chain: a response awaited first may be gone before body().
    record Answer(HttpVersion version, int status, String replica, String body) {
      static Future<Answer> read(HttpClientResponse r) {
        return r.body()
            .map(
                b ->
                    new Answer(
                        r.version(), r.statusCode(), r.getHeader("x-replica"), b.toString()));
      }
    }
    Answer r1 =
        loop.call(() -> h2.request(get).compose(req -> req.send()).compose(Answer::read))
            .await(10, TimeUnit.SECONDS);
    assertThat(r1.version()).isEqualTo(HttpVersion.HTTP_2);
    assertThat(r1.status()).isEqualTo(200);
    assertThat(r1.replica()).isEqualTo("k1");
    assertThat(r1.body()).contains("\"tracking\":\"ok\"");

    Answer r2 =
        loop.call(
                () ->
                    h2.request(new RequestOptions(get).setMethod(HttpMethod.POST).setURI("/upload"))
                        .compose(req -> req.send(Buffer.buffer("over h2c")))
                        .compose(Answer::read))
            .await(10, TimeUnit.SECONDS);
    assertThat(r2.status()).isEqualTo(200);
    assertThat(r2.body()).contains("k1");

    // A streamed HTTP/2 body without Content-Length reaches the member chunked.
    Answer r3 =
        loop.call(
                () ->
                    h2.request(new RequestOptions(get).setMethod(HttpMethod.POST).setURI("/stream"))
                        .compose(
                            req ->
                                req.setChunked(
                                        true) // on HTTP/2: no Content-Length, just DATA frames
                                    .write("part one, ")
                                    .compose(v -> req.end("part two"))
                                    .compose(v -> req.response()))
                        .compose(Answer::read))
            .await(10, TimeUnit.SECONDS);
    assertThat(r3.status()).isEqualTo(200);
    assertThat(k1.bodiesSeen).contains("part one, part two");
    MultiMap streamed = k1.headersSeen.get(k1.headersSeen.size() - 1);
    assertThat(streamed.get("transfer-encoding")).isEqualTo("chunked");
    assertThat(k1.headersSeen.get(0).contains("transfer-encoding")).isFalse(); // the GET
    assertThat(k1.headersSeen.get(0).get("via")).startsWith("2 replicapool-"); // received as h2
    assertThat(k1.bodiesSeen).contains("over h2c");
    h2.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void idempotentRequestsAreRetriedOnce503WhenThePoolAllows() throws Exception {
    TestMember sick = member("sick");
    TestMember ok = member("ok");
    sick.status = 503;
    startDataPlane();
    publish(
        pool("shop/tracking")
            .hosts("tracking.shop.example")
            .retryOn5xx()
            .outlier(0, 1000)
            .members(sick.snapshot(1), ok.snapshot(1)));

    Map<String, Integer> counts = sequential(dp.trafficPort(), "tracking.shop.example", 20);
    assertThat(counts).containsExactly(Map.entry("ok", 20));

    // Not idempotent: the member's 503 goes back to the client.
    int posts503 = 0;
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      for (int i = 0; i < 4; i++) {
        RawHttp.Response r =
            c.send(
                "POST /x HTTP/1.1\r\nHost: tracking.shop.example\r\nContent-Length: 2\r\n\r\nhi");
        if (r.status() == 503) {
          posts503++;
          assertThat(r.header("x-replica")).isEqualTo("sick");
        }
      }
    }
    assertThat(posts503).isEqualTo(2);

    // Without the pool's consent, no retry on 503 either.
    publish(
        pool("shop/tracking")
            .hosts("tracking.shop.example")
            .outlier(0, 1000)
            .members(sick.snapshot(1), ok.snapshot(1)));
    Map<String, Integer> noRetry = sequential(dp.trafficPort(), "tracking.shop.example", 20);
    assertThat(noRetry).containsEntry("status 503", 10).containsEntry("ok", 10);
  }

  @Test
  void memberThatRefusesConnectionsIsRetriedElsewhereAndLast502NamesIt() throws Exception {
    TestMember k1 = member("k1");
    startDataPlane();
    try (RefusedPort dead = new RefusedPort("127.0.0.1")) {
      int deadPort = dead.port;
      publish(
          pool("shop/tracking")
              .hosts("tracking.shop.example")
              .members(
                  k1.snapshot(1),
                  new dev.replicapool.api.wire.MemberSnapshot(
                      "127.0.0.1", deadPort, 1, dev.replicapool.api.v1alpha1.MemberState.Healthy)));
      assertThat(sequential(dp.trafficPort(), "tracking.shop.example", 10))
          .containsExactly(Map.entry("k1", 10));

      publish(
          pool("shop/lonely")
              .hosts("lonely.shop.example")
              .members(
                  new dev.replicapool.api.wire.MemberSnapshot(
                      "127.0.0.1", deadPort, 1, dev.replicapool.api.v1alpha1.MemberState.Healthy)));
      try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
        RawHttp.Response r = c.get("lonely.shop.example", "/");
        assertThat(r.status()).isEqualTo(502);
        assertThat(r.body()).contains("127.0.0.1:" + deadPort).contains("unreachable");
      }
    }
  }

  @Test
  void aDedicatedPortServesOnlyItsPoolAndClosesWhenDropped() throws Exception {
    TestMember a = member("a");
    TestMember b = member("b");
    startDataPlane(); // first: a free port picked now cannot be one the data plane binds
    int dedicated = ReplicaProcess.freePort("127.0.0.1");
    publish(pool("shop/a").hosts("a.shop.example").port(dedicated).members(a.snapshot(1)));
    publish(pool("shop/b").hosts("b.shop.example").members(b.snapshot(1)));

    try (RawHttp c = RawHttp.connect(dedicated)) {
      assertThat(c.get("b.shop.example", "/").header("x-replica")).isEqualTo("a");
      assertThat(c.get("anything", "/").header("x-replica")).isEqualTo("a");
    }
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      assertThat(c.get("b.shop.example", "/").header("x-replica")).isEqualTo("b");
      assertThat(c.get("a.shop.example", "/").header("x-replica")).isEqualTo("a");
    }
    // A port of the data plane itself or of another pool is refused with a NACK.
    assertThat(
            publishRejected(
                pool("shop/b").hosts("b.shop.example").port(dedicated).members(b.snapshot(1))))
        .contains("port " + dedicated);
    assertThat(
            publishRejected(
                pool("shop/b").hosts("b.shop.example").port(dp.adminPort()).members(b.snapshot(1))))
        .contains("data plane's own ports");

    publish(pool("shop/a").hosts("a.shop.example").members(a.snapshot(1)));
    await()
        .atMost(WAIT)
        .until(
            () -> {
              try (java.net.Socket s = new java.net.Socket("127.0.0.1", dedicated)) {
                return false;
              } catch (java.io.IOException e) {
                return true;
              }
            });
  }

  @Test
  void removingAMemberLetsItsInflightRequestFinish() throws Exception {
    TestMember slow = member("slow");
    TestMember other = member("other");
    slow.delayMillis = 700;
    startDataPlane();
    publish(pool("shop/tracking").hosts("tracking.shop.example").members(slow.snapshot(1)));

    CompletableFuture<RawHttp.Response> inflight =
        CompletableFuture.supplyAsync(
            () -> {
              try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
                return c.get("tracking.shop.example", "/slow");
              } catch (Exception e) {
                throw new RuntimeException(e);
              }
            });
    await().atMost(WAIT).until(() -> slow.requests.get() == 1);
    publish(pool("shop/tracking").hosts("tracking.shop.example").members(other.snapshot(1)));
    assertThat(sequential(dp.trafficPort(), "tracking.shop.example", 3))
        .containsExactly(Map.entry("other", 3));
    RawHttp.Response r = inflight.get(10, TimeUnit.SECONDS);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("x-replica")).isEqualTo("slow");
  }

  @Test
  void adaptivePolicySendsLittleToASlowMember() throws Exception {
    TestMember fast1 = member("fast1");
    TestMember fast2 = member("fast2");
    TestMember slow = member("slow");
    slow.delayMillis = 150;
    startDataPlane();
    publish(
        pool("shop/tracking")
            .hosts("tracking.shop.example")
            .policy(RoutingPolicy.Adaptive)
            .members(fast1.snapshot(1), fast2.snapshot(1), slow.snapshot(1)));
    Map<String, Integer> counts = sequential(dp.trafficPort(), "tracking.shop.example", 200);
    System.out.println("adaptive with one slow member: " + counts);
    assertThat(counts.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(200);
    assertThat(counts.getOrDefault("slow", 0)).isLessThan(10);
  }
}
