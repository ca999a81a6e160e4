package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.ReplicaProcess;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed and hostile requests to the data plane's traffic port over raw sockets. Each must be
 * refused (a 4xx, 501/505, or the connection closed) without reaching a member in a form the proxy
 * did not mean, and the proxy must answer a normal request correctly right after each one. The
 * member is a real sample replica; a second, "evil" listener checks that absolute-form URIs never
 * make the proxy connect elsewhere.
 *
 * <p>The data plane runs with the default line and header limits (4096, 8192), a 64 KiB body limit
 * and a 2 s request-header timeout (default 10 s), so that the test stays short.
 */
class HostileRequestsIT {
  static final int MAX_BODY = 64 * 1024;
  static final long HEADER_TIMEOUT_MILLIS = 2_000;
  static final String HOST = "hostile.local";

  /** Cases that RFC 9112 lets a server either refuse or normalize. */
  static final String NORMALIZED = "(refused or normalized) ";

  /**
   * Content-Length with Transfer-Encoding: RFC 9112 6.1 lets a server refuse it or read the body by
   * Transfer-Encoding, and in both cases requires closing the connection after the answer.
   */
  static final String BY_TE_THEN_CLOSED = "(refused, or read as chunked and closed) ";

  static FaultSystem sys;
  static ReplicaPoolOperator op;
  static DataPlane dp;
  static ReplicaProcess member;
  static FaultTcpMember evil;
  static RecordingMember recorder;
  static LaxFramingMember lax;
  static final String LAX_HOST = "lax.local";
  static final String RECORDED_HOST = "recorded.local";
  static final List<String> table = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() {
    sys = new FaultSystem("hostile-requests");
    op = sys.startOperator();
    dp =
        sys.startDataPlane(
            "dp-hostile",
            op.controlPlanePort(),
            s ->
                s.withLimits(4096, 8192, MAX_BODY)
                    .withClientTimeouts(120, HEADER_TIMEOUT_MILLIS)
                    .withInstances(2));
    member = sys.replica("m1");
    evil = sys.closeLater(FaultTcpMember.silent());
    ReplicaPool pool = sys.pool("hostile", List.of(member.address()));
    pool.getSpec().route.hosts = List.of(HOST);
    sys.create(pool);
    sys.awaitReadyAndSynced("hostile", Duration.ofSeconds(30));
    recorder = sys.closeLater(new RecordingMember(sys.vertx));
    ReplicaPool recorded = sys.pool("recorded", List.of(recorder.address()));
    recorded.getSpec().route.hosts = List.of(RECORDED_HOST);
    sys.create(recorded);
    sys.awaitReadyAndSynced("recorded", Duration.ofSeconds(30));
    lax = sys.closeLater(new LaxFramingMember(300));
    ReplicaPool laxPool = sys.pool("lax", List.of(lax.address()));
    laxPool.getSpec().route.hosts = List.of(LAX_HOST);
    sys.create(laxPool);
    sys.awaitReadyAndSynced("lax", Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() {
    System.out.println("FIGURE hostile-requests: outcome per request");
    table.forEach(l -> System.out.println("FIGURE   " + l));
    sys.close();
  }

  static String crlf(String s) {
    return s.replace("\n", "\r\n");
  }

  static byte[] bytes(String... parts) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (String p : parts) {
      b.writeBytes(p.getBytes(StandardCharsets.ISO_8859_1));
    }
    return b.toByteArray();
  }

  static String get(String extraHeaders) {
    return "GET /track/1 HTTP/1.1\r\nHost: " + HOST + "\r\n" + extraHeaders + "\r\n";
  }

  static Stream<Arguments> hostile() {
    String h = "Host: " + HOST + "\r\n";
    StringBuilder manyHeaders = new StringBuilder();
    for (int i = 0; i < 2000; i++) {
      manyHeaders.append("X-H").append(i).append(": v\r\n");
    }
    List<Arguments> cases = new ArrayList<>();
    cases.add(
        Arguments.of(
            "request line over --max-initial-line (8 KiB URI)",
            bytes("GET /" + "a".repeat(8192) + " HTTP/1.1\r\n" + h + "\r\n")));
    cases.add(
        Arguments.of(
            "header block over --max-header-bytes (one 16 KiB header)",
            bytes(get("X-Big: " + "b".repeat(16 * 1024) + "\r\n"))));
    cases.add(Arguments.of("2000 headers (about 20 KiB)", bytes(get(manyHeaders.toString()))));
    cases.add(
        Arguments.of(
            "Content-Length over --max-body-bytes",
            bytes("POST /up HTTP/1.1\r\n" + h + "Content-Length: 20000000\r\n\r\n")));
    cases.add(
        Arguments.of(
            "chunked body growing past --max-body-bytes",
            bytes(
                "POST /up HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n",
                (Integer.toHexString(40_000) + "\r\n" + "c".repeat(40_000) + "\r\n").repeat(2),
                "0\r\n\r\n")));
    cases.add(
        Arguments.of(
            BY_TE_THEN_CLOSED + "Content-Length and Transfer-Encoding (CL.TE)",
            bytes(
                "POST /up HTTP/1.1\r\n"
                    + h
                    + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n",
                "0\r\n\r\nGET /smuggled HTTP/1.1\r\n" + h + "\r\n")));
    cases.add(
        Arguments.of(
            BY_TE_THEN_CLOSED + "Transfer-Encoding and Content-Length (TE.CL)",
            bytes(
                "POST /up HTTP/1.1\r\n"
                    + h
                    + "Transfer-Encoding: chunked\r\nContent-Length: 40\r\n\r\n",
                "0\r\n\r\nGET /smuggled HTTP/1.1\r\n" + h + "\r\n")));
    cases.add(
        Arguments.of(
            "two different Content-Length headers",
            bytes(
                "POST /up HTTP/1.1\r\n"
                    + h
                    + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!")));
    cases.add(
        Arguments.of(
            "Content-Length list with different values",
            bytes("POST /up HTTP/1.1\r\n" + h + "Content-Length: 5, 6\r\n\r\nhello!")));
    cases.add(
        Arguments.of(
            "Content-Length with a sign",
            bytes("POST /up HTTP/1.1\r\n" + h + "Content-Length: +5\r\n\r\nhello")));
    cases.add(
        Arguments.of(
            "negative Content-Length",
            bytes("POST /up HTTP/1.1\r\n" + h + "Content-Length: -1\r\n\r\n")));
    cases.add(
        Arguments.of(
            "Content-Length beyond 2^63",
            bytes("POST /up HTTP/1.1\r\n" + h + "Content-Length: 99999999999999999999\r\n\r\n")));
    cases.add(
        Arguments.of(
            "invalid chunk size",
            bytes(
                "POST /up HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n",
                "zz\r\nhello\r\n0\r\n\r\n")));
    cases.add(
        Arguments.of(
            "chunk size overflowing 64 bits",
            bytes(
                "POST /up HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n",
                "fffffffffffffffffffff\r\nhello\r\n0\r\n\r\n")));
    cases.add(
        Arguments.of(
            "chunk lines ending in a bare LF",
            bytes(
                "POST /up HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n",
                "5\nhello\n0\n\n")));
    cases.add(
        Arguments.of(
            "chunk data ending in a bare LF",
            bytes(
                "POST /up HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n",
                "5\r\nhello\n0\r\n\r\n")));
    cases.add(
        Arguments.of(
            "trailer section ending in a bare LF",
            bytes(
                "POST /up HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n",
                "5\r\nhello\r\n0\r\nX-T: 1\n\n")));
    cases.add(
        Arguments.of(
            "Transfer-Encoding that does not end in chunked",
            bytes(
                "POST /up HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked, gzip\r\n\r\n",
                "5\r\nhello\r\n0\r\n\r\n")));
    cases.add(
        Arguments.of(
            "unknown Transfer-Encoding",
            bytes("POST /up HTTP/1.1\r\n" + h + "Transfer-Encoding: xchunked\r\n\r\n", "hello")));
    cases.add(
        Arguments.of(
            NORMALIZED + "header continuation line (obs-fold)",
            bytes("GET /track/1 HTTP/1.1\r\n" + h + "X-Folded: a\r\n  b\r\n\r\n")));
    cases.add(
        Arguments.of(
            "whitespace between header name and colon",
            bytes("GET /track/1 HTTP/1.1\r\nHost : " + HOST + "\r\n\r\n")));
    cases.add(Arguments.of("NUL byte in a header value", bytes(get("X-Nul: a\u0000b\r\n"))));
    cases.add(
        Arguments.of(
            "NUL byte in the request target",
            bytes("GET /track/\u00001 HTTP/1.1\r\n" + h + "\r\n")));
    cases.add(Arguments.of("HTTP/0.9 request", bytes("GET /track/1\r\n\r\n")));
    cases.add(
        Arguments.of("unknown HTTP version", bytes("GET /track/1 HTTP/7.3\r\n" + h + "\r\n")));
    cases.add(
        Arguments.of("method with separators", bytes("G<E>T /track/1 HTTP/1.1\r\n" + h + "\r\n")));
    cases.add(
        Arguments.of(
            "absurdly long method",
            bytes("X".repeat(5000) + " /track/1 HTTP/1.1\r\n" + h + "\r\n")));
    cases.add(
        Arguments.of(
            "CONNECT tunnel to another host",
            bytes("CONNECT " + "127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n")));
    cases.add(
        Arguments.of(
            "absolute-form URI to another host (open proxy)",
            bytes("GET http://EVIL/steal HTTP/1.1\r\n" + h + "\r\n")));
    cases.add(Arguments.of("HTTP/1.1 without Host", bytes("GET /track/1 HTTP/1.1\r\n\r\n")));
    cases.add(
        Arguments.of(
            "two Host headers",
            bytes("GET /track/1 HTTP/1.1\r\n" + h + "Host: other.local\r\n\r\n")));
    cases.add(
        Arguments.of(
            "Host that is not a host name",
            bytes("GET /track/1 HTTP/1.1\r\nHost: bad host!/x\r\n\r\n")));
    cases.add(
        Arguments.of(
            "Host with user info",
            bytes("GET /track/1 HTTP/1.1\r\nHost: user@" + HOST + "\r\n\r\n")));
    cases.add(Arguments.of("header name with separators", bytes(get("X(bad): 1\r\n"))));
    cases.add(
        Arguments.of(
            "Expect: 100-continue with a body over the limit",
            bytes(
                "POST /up HTTP/1.1\r\n"
                    + h
                    + "Content-Length: 20000000\r\nExpect: 100-continue\r\n\r\n")));
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostile")
  void hostileRequestIsRefusedAndTheProxyServesTheNextOne(String name, byte[] request)
      throws Exception {
    byte[] wire =
        new String(request, StandardCharsets.ISO_8859_1)
            .replace("EVIL", "127.0.0.1:" + evil.address().split(":")[1])
            .getBytes(StandardCharsets.ISO_8859_1);
    HostileSocket.Outcome outcome;
    try (HostileSocket s = new HostileSocket(dp.trafficPort(), 5_000)) {
      outcome = s.exchange(wire);
    }
    table.add(String.format("%-62s %s", name, outcome));
    if (name.startsWith(NORMALIZED)) {
      // RFC 9112 5.2: reject, or replace each fold with a space before forwarding (Netty does).
      assertThat(outcome.status()).as("%s: %s", name, outcome).isIn(200, 400);
      assertNormalRequestWorks(dp.trafficPort());
      return;
    }
    if (name.startsWith(BY_TE_THEN_CLOSED)) {
      assertThat(outcome.refused() || outcome.status() == 200).as("%s: %s", name, outcome).isTrue();
      assertThat(outcome.closedAfter()).as("%s: must close: %s", name, outcome).isTrue();
      assertNormalRequestWorks(dp.trafficPort());
      return;
    }
    assertThat(outcome.refused()).as("%s: %s %s", name, outcome, outcome.head()).isTrue();
    if (outcome.status() > 0) {
      assertThat(outcome.closedAfter() || outcome.status() == 404 || outcome.status() == 405)
          .as("%s: a refused request whose framing is in doubt must close: %s", name, outcome)
          .isTrue();
    }
    assertThat(evil.accepted()).as("the proxy connected to another host").isZero();
    assertNormalRequestWorks(dp.trafficPort());
  }

  static void assertNormalRequestWorks(int port) throws Exception {
    try (HostileSocket s = new HostileSocket(port, 5_000)) {
      HostileSocket.Outcome ok = s.exchange(get("Connection: close\r\n"));
      assertThat(ok.status()).as("a normal request after it").isEqualTo(200);
      assertThat(ok.head()).contains("x-replica: m1");
    }
  }

  @Test
  void smuggledRequestsNeverReachTheMember() throws Exception {
    // RFC 9112 6.1: a request with both Content-Length and Transfer-Encoding may be refused or
    // processed by its Transfer-Encoding, but the connection must close after the answer, so that
    // what follows (here a GET /smuggled hidden in the body) is never taken for a request. The
    // member records what reached it: the client seeing the connection close is not enough, as a
    // pipelined request can be forwarded while the connection is closing.
    for (int i = 0; i < 10; i++) {
      String smuggle =
          "POST /up HTTP/1.1\r\nHost: "
              + RECORDED_HOST
              + "\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET"
              + " /smuggled HTTP/1.1\r\nHost: "
              + RECORDED_HOST
              + "\r\n\r\n";
      try (HostileSocket s = new HostileSocket(dp.trafficPort(), 3_000)) {
        HostileSocket.Outcome first = s.exchange(smuggle);
        assertThat(first.refused() || first.status() == 200).as("%s", first).isTrue();
        HostileSocket.Outcome second = s.readStatus();
        assertThat(second.status())
            .as("no second answer on a connection that carried CL and TE")
            .isIn(HostileSocket.CLOSED, HostileSocket.SILENT);
      }
      // A marker request after it: what the proxy forwarded before is in the record by then.
      String marker = "GET /after/" + i + " HTTP/1.1\r\nHost: " + RECORDED_HOST + "\r\n";
      try (HostileSocket s = new HostileSocket(dp.trafficPort(), 3_000)) {
        assertThat(s.exchange(marker + "Connection: close\r\n\r\n").status()).isEqualTo(200);
      }
      int round = i;
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> recorder.received().contains("GET /after/" + round));
    }
    assertThat(recorder.received()).noneMatch(r -> r.contains("smuggled"));
  }

  /**
   * A member that frames by Content-Length alone reads a chunked body as more requests and answers
   * them late, after the client's own answer. Such an answer must reach no client: a member
   * connection that carried a chunked body carries nothing else (the old data plane gave it back to
   * the pool, and the next request on it got the stray answer).
   */
  @Test
  void aMembersAnswerToNoRequestReachesNoClient() throws Exception {
    for (int i = 0; i < 5; i++) {
      String chunked =
          "POST /chunked/"
              + i
              + " HTTP/1.1\r\nHost: "
              + LAX_HOST
              + "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
      String next = "GET /next/" + i + " HTTP/1.1\r\nHost: " + LAX_HOST + "\r\n\r\n";
      try (HostileSocket s = new HostileSocket(dp.trafficPort(), 3_000).closeWait(20)) {
        HostileSocket.Outcome first = s.exchange(chunked);
        assertThat(first.head()).contains("X-Answers: POST /chunked/" + i);
        HostileSocket.Outcome second = s.exchange(next);
        assertThat(second.head())
            .as("the answer to GET /next/%d", i)
            .contains("X-Answers: GET /next/" + i);
      }
    }
    // The member did read the chunks as requests: the case this test is about did happen.
    assertThat(lax.received()).contains("5");
  }

  /**
   * 50 connections send a request line, then one header byte per connection every 100 ms, far
   * within any idle timeout. On a data plane without h2c the header timeout closes them all, while
   * normal requests on other connections are served all along.
   */
  @Test
  void slowlorisIsClosedByTheHeaderTimeoutWhileOthersAreServed() throws Exception {
    int port = h1Only().trafficPort();
    int connections = 50;
    List<HostileSocket> slow = new ArrayList<>();
    try {
      for (int i = 0; i < connections; i++) {
        HostileSocket s = new HostileSocket(port, 1_000);
        s.write("GET /track/" + i + " HTTP/1.1\r\nHost: " + HOST + "\r\n");
        slow.add(s);
      }
      long start = System.nanoTime();
      AtomicInteger served = new AtomicInteger();
      await()
          .atMost(Duration.ofMillis(HEADER_TIMEOUT_MILLIS + 5_000))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                int open = trickle(slow);
                assertNormalRequestWorks(port);
                served.incrementAndGet();
                return open == 0;
              });
      long closedAfter = (System.nanoTime() - start) / 1_000_000;
      table.add(
          String.format(
              "%-62s all closed after %d ms (header timeout %d ms, h2c off); %d normal requests"
                  + " served meanwhile",
              "slowloris: " + connections + " connections trickling headers",
              closedAfter,
              HEADER_TIMEOUT_MILLIS,
              served.get()));
      assertThat(closedAfter).isGreaterThanOrEqualTo(HEADER_TIMEOUT_MILLIS - 200);
      assertThat(served.get()).as("normal requests answered while under attack").isGreaterThan(1);
    } finally {
      for (HostileSocket s : slow) {
        s.close();
      }
    }
  }

  /**
   * The default data plane (h2c on) owns each connection from accept, the HTTP/2 preface check
   * included: a trickled first request header is bounded by the header timeout, as with h2c off.
   */
  @Test
  void withH2cTheHeaderTimeoutBoundsTheFirstRequestToo() throws Exception {
    try (HostileSocket first = new HostileSocket(dp.trafficPort(), 1_000)) {
      long start = System.nanoTime();
      first.write("GET /track/1 HTTP/1.1\r\nHost: " + HOST + "\r\n");
      await()
          .atMost(Duration.ofMillis(HEADER_TIMEOUT_MILLIS + 2_000))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> trickle(List.of(first)) == 0);
      long closedAfter = (System.nanoTime() - start) / 1_000_000;
      assertThat(closedAfter).isGreaterThanOrEqualTo(HEADER_TIMEOUT_MILLIS - 200);
      table.add(
          String.format(
              "%-62s closed after %d ms (header timeout %d ms)",
              "slowloris on the default data plane (h2c on), first request",
              closedAfter,
              HEADER_TIMEOUT_MILLIS));
    }
  }

  @Test
  void aKeptAliveConnectionMayIdleButNotTrickle() throws Exception {
    DataPlane strict = h1Only();
    try (HostileSocket s = new HostileSocket(strict.trafficPort(), 5_000).closeWait(50)) {
      assertThat(s.exchange(get("")).status()).isEqualTo(200);
      // Idle longer than the header timeout: still open (a kept-alive connection may idle for
      // the idle timeout, here 3 s).
      await()
          .during(Duration.ofMillis(HEADER_TIMEOUT_MILLIS + 300))
          .atMost(Duration.ofMillis(HEADER_TIMEOUT_MILLIS + 1_500))
          .until(() -> !s.closedByPeer());
      assertThat(s.exchange(get("")).status()).isEqualTo(200);
      // Trickling the next header does not extend that: closed 3 s after the last response.
      s.write("GET /track/2 HTTP/1.1\r\n");
      long start = System.nanoTime();
      await()
          .atMost(Duration.ofSeconds(STRICT_IDLE_SECONDS + 3))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> trickle(List.of(s)) == 0);
      long closedAfter = (System.nanoTime() - start) / 1_000_000;
      table.add(
          String.format(
              "%-62s closed after %d ms (idle timeout %d s)",
              "slowloris on a kept-alive connection (next request trickled)",
              closedAfter,
              STRICT_IDLE_SECONDS));
      assertThat(closedAfter).isLessThan(STRICT_IDLE_SECONDS * 1000L + 1_000);
    }
  }

  /** Writes one header byte on each socket; returns how many are still open. */
  static int trickle(List<HostileSocket> sockets) {
    int open = 0;
    for (HostileSocket s : sockets) {
      try {
        s.write("X");
        if (!s.closedByPeer(1)) {
          open++;
        }
      } catch (java.io.IOException closed) {
        // closed by the data plane
      }
    }
    return open;
  }

  static final int STRICT_IDLE_SECONDS = 3;
  static DataPlane h1Only;

  /** A second data plane on the same pool with h2c off, a 2 s header and a 3 s idle timeout. */
  static synchronized DataPlane h1Only() {
    if (h1Only == null) {
      h1Only =
          sys.startDataPlane(
              "dp-hostile-h1",
              op.controlPlanePort(),
              s ->
                  s.withH2c(false)
                      .withClientTimeouts(STRICT_IDLE_SECONDS, HEADER_TIMEOUT_MILLIS)
                      .withInstances(2));
      DataPlane d = h1Only;
      await().atMost(Duration.ofSeconds(10)).until(() -> sys.admin(d, "/readyz").status() == 200);
    }
    return h1Only;
  }

  @Test
  void adminPortIsNotReachableThroughTheTrafficPort() throws Exception {
    String admin = "127.0.0.1:" + dp.adminPort();
    for (String request :
        List.of(
            "GET /status HTTP/1.1\r\nHost: " + admin + "\r\nConnection: close\r\n\r\n",
            "GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
            "GET /status HTTP/1.1\r\nHost: localhost:"
                + dp.adminPort()
                + "\r\nConnection: close\r\n\r\n",
            "GET http://" + admin + "/status HTTP/1.1\r\nHost: " + HOST + "\r\n\r\n",
            "GET /../status HTTP/1.1\r\nHost: " + admin + "\r\nConnection: close\r\n\r\n")) {
      try (HostileSocket s = new HostileSocket(dp.trafficPort(), 5_000)) {
        HostileSocket.Outcome o = s.exchange(request);
        table.add(
            String.format(
                "%-62s %s", "admin via traffic port: " + request.lines().findFirst().get(), o));
        assertThat(o.status()).as(request).isBetween(400, 499);
      }
    }
    // Path traversal through a pool goes to the member as sent, never anywhere else.
    try (HostileSocket s = new HostileSocket(dp.trafficPort(), 5_000)) {
      HostileSocket.Outcome o =
          s.exchange(
              "GET /../../status HTTP/1.1\r\nHost: " + HOST + "\r\nConnection: close\r\n\r\n");
      table.add(String.format("%-62s %s", "path traversal /../../status to a pool", o));
      assertThat(o.head()).doesNotContain("application/json\r\n\r\n{\n  \"node\"");
      if (o.status() == 200) {
        assertThat(o.head()).contains("x-replica: m1");
      }
    }
  }
}
