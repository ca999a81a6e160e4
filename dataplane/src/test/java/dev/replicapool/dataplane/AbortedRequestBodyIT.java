package dev.replicapool.dataplane;

import static dev.replicapool.dataplane.SnapshotBuilder.pool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.testing.OnEventLoop;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Request bodies the proxy gives up half-way (past {@code --max-body-bytes}, a chunk it cannot
 * frame, a client gone), sent to a member that answers as soon as it has the request head, before
 * it has read the body, as the sample replica does. A member connection whose request body was cut
 * must never carry another request; the client gets 413 or 400 at once; none of it counts against
 * the member; and the proxy keeps serving.
 *
 * <p>What could go wrong: Vert.x hands a member connection whose request was reset after the answer
 * ended back to its pool, half-way through the cut body, and the next request on it waits for ever
 * ({@code proxy.UpstreamRequest} closes such a connection instead); a body that cannot be framed
 * could end in a 502 that blames the member, or in no answer. HostileRequestsIT meets these cases
 * once per run, as races; the tests here force the order or repeat the case until a wrong outcome
 * would show.
 */
class AbortedRequestBodyIT extends DataPlaneTestBase {
  static final String HOST = "bodies.shop.example";
  static final int LIMIT = 64 * 1024;
  static final int CLOSED = -1;
  static final int SILENT = -2;

  TestMember start(boolean answerEarly) {
    TestMember m = member("m1");
    m.answerEarly = answerEarly;
    startDataPlane(settings().withLimits(4096, 8192, LIMIT));
    publish(pool("shop/bodies").hosts(HOST).members(m.snapshot(1)));
    return m;
  }

  /**
   * Deterministic: the member's answer is through before the body is, then the body goes past the
   * limit. Were that connection reused, every request after it would hang.
   */
  @Test
  void aMemberConnectionLeftHalfWayThroughABodyIsNeverReused() throws Exception {
    TestMember m = start(true);
    HttpClient h2 = h2PriorKnowledge(vertx);
    RequestOptions up =
        new RequestOptions()
            .setServer(SocketAddress.inetSocketAddress(dp.trafficPort(), "127.0.0.1"))
            .setHost(HOST)
            .setPort(80)
            .setMethod(HttpMethod.POST)
            .setURI("/up");
    HttpClientRequest post =
        new OnEventLoop(vertx).call(() -> h2.request(up)).await(10, TimeUnit.SECONDS);
    // Read the answer in the chain that gets it: the member answers as soon as it has the head.
    Future<Buffer> answer = post.response().compose(HttpClientResponse::body);
    post.setChunked(true); // HTTP/2 without Content-Length: to the member it goes chunked
    post.write(Buffer.buffer("c".repeat(40_000))).await(10, TimeUnit.SECONDS);
    assertThat(answer.await(10, TimeUnit.SECONDS).toString()).contains("\"replica\":\"m1\"");
    post.write(Buffer.buffer("c".repeat(40_000))).await(10, TimeUnit.SECONDS); // past the limit
    // The proxy gives the member request up and closes its connection: back in the pool, half-way
    // through the body, the connection would hang the next request sent on it.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () ->
                m.byConnection.entrySet().stream()
                    .anyMatch(
                        e ->
                            e.getValue().stream().anyMatch(r -> r.startsWith("POST"))
                                && m.closedConnections.contains(e.getKey())));

    for (int i = 0; i < 3; i++) {
      assertThat(status(normalRequest(), 3_000)).as("request %d after it", i).isEqualTo(200);
    }
    assertCutBodiesEndedTheirConnection(m, 1);
    assertNoFailureCountedAgainst("m1");
    h2.close().await(10, TimeUnit.SECONDS);
  }

  /** HostileRequestsIT's case [5], 30 times: a race, which an unguarded proxy lost 1 try in 8. */
  @Test
  void aChunkedBodyGrowingPastTheLimitIs413AndTheNextRequestIsServed() throws Exception {
    TestMember m = start(true);
    byte[] tooBig =
        bytes(
            "POST /up HTTP/1.1\r\nHost: " + HOST + "\r\nTransfer-Encoding: chunked\r\n\r\n",
            (Integer.toHexString(40_000) + "\r\n" + "c".repeat(40_000) + "\r\n").repeat(2),
            "0\r\n\r\n");
    for (int i = 0; i < 30; i++) {
      int[] outcome = exchange(tooBig, 3_000);
      assertThat(outcome[0]).as("try %d", i).isEqualTo(413);
      assertThat(outcome[1]).as("try %d: closed after", i).isEqualTo(1);
      assertThat(status(normalRequest(), 3_000)).as("the request after try %d", i).isEqualTo(200);
    }
    assertCutBodiesEndedTheirConnection(m, 30);
    assertNoFailureCountedAgainst("m1");
  }

  /**
   * HostileRequestsIT's case [13] and its kin: Vert.x cannot frame the body and closes the
   * connection right after; the proxy answers 400 first, rather than closing without an answer or
   * (when a pooled member connection is at hand at once) answering a 502 that blames the member.
   */
  @Test
  void aBodyThatCannotBeFramedIs400AndClosedAndNotTheMembersFault() throws Exception {
    TestMember m = start(true);
    String head = "POST /up HTTP/1.1\r\nHost: " + HOST + "\r\nTransfer-Encoding: chunked\r\n\r\n";
    List<String> bodies =
        List.of(
            "zz\r\nhello\r\n0\r\n\r\n", // invalid chunk size
            "fffffffffffffffffffff\r\nhello\r\n0\r\n\r\n", // chunk size overflowing 64 bits
            "5\r\nhello\r\nzz\r\nhello\r\n0\r\n\r\n"); // after a good chunk went to the member
    for (int i = 0; i < 20; i++) {
      for (String body : bodies) {
        int[] outcome = exchange(bytes(head, body), 3_000);
        assertThat(outcome[0]).as("try %d of %s", i, body.strip()).isEqualTo(400);
        assertThat(outcome[1]).as("try %d of %s: closed after", i, body.strip()).isEqualTo(1);
        assertThat(status(normalRequest(), 3_000)).as("the request after it").isEqualTo(200);
      }
    }
    assertCutBodiesEndedTheirConnection(m, -1);
    assertNoFailureCountedAgainst("m1");
  }

  /** A client that goes away half-way through its body is not the member's failure. */
  @Test
  void aClientGoneHalfWayThroughItsBodyIsNotCountedAgainstTheMember() throws Exception {
    TestMember m = start(false); // answers only once it has the whole body: it never will
    List<String> cut =
        List.of(
            "POST /up HTTP/1.1\r\nHost: "
                + HOST
                + "\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n",
            "POST /up HTTP/1.1\r\nHost: " + HOST + "\r\nContent-Length: 10\r\n\r\nhello");
    for (String request : cut) {
      // Counted before the request goes: the member may have its head before the next line runs.
      int seen = m.cutBodies.get();
      int heads = m.heads.get();
      try (Socket s = new Socket("127.0.0.1", dp.trafficPort())) {
        s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
        // The member has the head (and waits for the rest): the client goes.
        await().atMost(WAIT).until(() -> m.heads.get() == heads + 1);
        s.close();
        await().atMost(WAIT).until(() -> m.cutBodies.get() == seen + 1);
      }
    }
    assertThat(status(normalRequest(), 3_000)).isEqualTo(200);
    assertThat(m.bodiesSeen).noneMatch(b -> b.contains("hello"));
    assertNoFailureCountedAgainst("m1");
  }

  /**
   * Every POST that reached the member had its body cut: its connection (which may have carried
   * requests before) carried nothing after it and was closed, and the member never took a shorter
   * body for the whole one. At least one reached it, at most {@code sent} (-1: any number). Not
   * every one has to: a body whose bytes come with its head may be refused (413) before a member
   * connection is open for it, so how many reach the member is the network's timing (28 of 30 once
   * here).
   */
  static void assertCutBodiesEndedTheirConnection(TestMember m, int sent) {
    List<io.vertx.core.http.HttpConnection> posts =
        m.byConnection.entrySet().stream()
            .filter(e -> e.getValue().stream().anyMatch(r -> r.startsWith("POST")))
            .map(java.util.Map.Entry::getKey)
            .toList();
    if (sent >= 0) {
      assertThat(posts).hasSizeBetween(1, sent);
    }
    for (io.vertx.core.http.HttpConnection c : posts) {
      List<String> carried = m.byConnection.get(c);
      assertThat(carried.get(carried.size() - 1))
          .as("last request on %s", carried)
          .startsWith("POST");
      assertThat(carried.stream().filter(r -> r.startsWith("POST"))).hasSize(1);
    }
    await().atMost(WAIT).until(() -> m.closedConnections.containsAll(posts));
    assertThat(m.bodiesSeen).as("bodies the member took as whole").allMatch(String::isEmpty);
  }

  void assertNoFailureCountedAgainst(String member) throws Exception {
    JsonObject p = poolStatus("shop/bodies");
    JsonObject m = p.getJsonArray("members").getJsonObject(0);
    assertThat(m.getLong("failures")).as("failures of %s: %s", member, m).isZero();
    assertThat(m.getBoolean("ejected")).isFalse();
  }

  static byte[] normalRequest() {
    return bytes("GET /track/1 HTTP/1.1\r\nHost: " + HOST + "\r\nConnection: close\r\n\r\n");
  }

  static byte[] bytes(String... parts) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (String p : parts) {
      b.writeBytes(p.getBytes(StandardCharsets.ISO_8859_1));
    }
    return b.toByteArray();
  }

  int status(byte[] request, int timeoutMillis) throws IOException {
    return exchange(request, timeoutMillis)[0];
  }

  /**
   * Writes the request on a new connection; returns the status of the answer (or {@link #CLOSED},
   * {@link #SILENT}) and 1 when the connection closed after it.
   */
  int[] exchange(byte[] request, int timeoutMillis) throws IOException {
    try (Socket s = new Socket("127.0.0.1", dp.trafficPort())) {
      s.setSoTimeout(timeoutMillis);
      try {
        s.getOutputStream().write(request);
        s.getOutputStream().flush();
      } catch (IOException e) {
        // closed while writing: what came back is read below
      }
      InputStream in = s.getInputStream();
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      try {
        for (int c; (c = in.read()) >= 0; ) {
          head.write(c);
          if (head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            break;
          }
        }
      } catch (SocketTimeoutException e) {
        return new int[] {SILENT, 0};
      } catch (IOException e) {
        return new int[] {CLOSED, 1};
      }
      String h = head.toString(StandardCharsets.ISO_8859_1);
      if (h.isEmpty()) {
        return new int[] {CLOSED, 1};
      }
      int status = Integer.parseInt(h.split(" ", 3)[1]);
      boolean closed;
      try {
        in.readAllBytes(); // the body, then end of stream if the proxy closes
        closed = true;
      } catch (SocketTimeoutException e) {
        closed = false;
      } catch (IOException e) {
        closed = true;
      }
      return new int[] {status, closed ? 1 : 0};
    }
  }
}
