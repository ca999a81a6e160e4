package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The client side of a connection on the forwarding core: pipelined requests in order, nothing
 * processed behind a close, the connection limit, and absolute request-header deadlines from accept
 * and after each response.
 */
class ClientConnectionsIT extends DataPlaneTestBase {
  static final String HOST = "conn.shop.example";

  void servePool() {
    publish(SnapshotBuilder.pool("shop/conn").hosts(HOST).members(member("m1").snapshot(1)));
  }

  static String get(String path, String extra) {
    return "GET " + path + " HTTP/1.1\r\nHost: " + HOST + "\r\n" + extra + "\r\n";
  }

  String pipeline(String... requests) throws IOException {
    try (Socket s = new Socket("127.0.0.1", dp.trafficPort())) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(String.join("", requests).getBytes(StandardCharsets.ISO_8859_1));
      s.shutdownOutput();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrder() throws Exception {
    startDataPlane();
    servePool();
    String answers = pipeline(get("/a", ""), get("/b", ""), get("/c", ""));
    assertThat(answers.split("HTTP/1.1 200", -1)).hasSize(4);
    assertThat(members.get(0).byConnection.values().stream().flatMap(l -> l.stream()).toList())
        .containsSubsequence("GET /a", "GET /b", "GET /c");
  }

  @Test
  void noRequestIsProcessedBehindOneThatAskedToClose() throws Exception {
    startDataPlane();
    servePool();
    String answers =
        pipeline(get("/a", ""), get("/close", "Connection: close\r\n"), get("/hidden", ""));
    assertThat(answers.split("HTTP/1.1 200", -1)).hasSize(3);
    assertThat(members.get(0).heads.get()).isEqualTo(2);
  }

  @Test
  void connectionsBeyondTheLimitAreClosedAndCountedUntilOneCloses() throws Exception {
    startDataPlane(settings().withMaxClientConnections(2));
    servePool();
    try (RawHttp a = RawHttp.connect(dp.trafficPort());
        RawHttp b = RawHttp.connect(dp.trafficPort())) {
      assertThat(a.get(HOST, "/1").status()).isEqualTo(200);
      assertThat(b.get(HOST, "/2").status()).isEqualTo(200);
      try (Socket c = new Socket("127.0.0.1", dp.trafficPort())) {
        assertThat(millisToClose(c, 5_000)).isLessThan(4_000L);
      }
      // Counted before the close; awaited all the same, so that a failure says what was seen.
      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(metric("replicapool_client_connections_refused_total"))
                      .as("refused; open: %s", metric("replicapool_client_connections"))
                      .isEqualTo(1.0));
      assertThat(a.get(HOST, "/3").status()).isEqualTo(200);
      b.close();
      await().atMost(WAIT).until(() -> metric("replicapool_client_connections") == 1.0);
      try (RawHttp d = RawHttp.connect(dp.trafficPort())) {
        assertThat(d.get(HOST, "/4").status()).isEqualTo(200);
      }
    }
  }

  @Test
  void aFirstLineThatIsNeitherTheHttp2PrefaceNorAnHttp1RequestLineIsNotAnswered() throws Exception {
    startDataPlane();
    servePool();
    // RFC 9113 3.4: an invalid connection preface ends the connection (h2spec 3.5/2)
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      c.socket().getOutputStream().write("INVALID CONNECTION PREFACE\r\n\r\n".getBytes());
      assertThat(c.closedByPeer()).as("closed without an answer").isTrue();
    }
    // an HTTP/1.x request line with a bad header is still answered, as is a later bad request
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      assertThat(c.send("GET / HTTP/1.1\r\nHost: " + HOST + "\r\nBad Header: x\r\n\r\n").status())
          .isEqualTo(400);
    }
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      assertThat(c.send(get("/", "")).status()).isEqualTo(200);
      assertThat(c.send("NOT A REQUEST\r\n\r\n").status()).isEqualTo(400);
    }
  }

  @Test
  void aConnectionWithoutARequestHeadIsClosedAtTheDeadlineFromAccept() throws Exception {
    startDataPlane(settings().withClientTimeouts(10, 300));
    servePool();
    try (Socket s = new Socket("127.0.0.1", dp.trafficPort())) {
      assertThat(millisToClose(s, 5_000)).isBetween(200L, 4_000L);
    }
  }

  @Test
  void aKeptAliveConnectionMayIdleUntilTheIdleTimeoutButNoLonger() throws Exception {
    startDataPlane(settings().withClientTimeouts(2, 300));
    servePool();
    try (RawHttp c = RawHttp.connect(dp.trafficPort());
        Socket raw = c.socket()) {
      assertThat(c.get(HOST, "/1").status()).isEqualTo(200);
      raw.setSoTimeout(900);
      boolean open;
      try {
        open = raw.getInputStream().read() != -1;
      } catch (SocketTimeoutException e) {
        open = true;
      }
      assertThat(open).as("open 900 ms after the response, idle timeout 2 s").isTrue();
      assertThat(millisToClose(raw, 10_000)).isLessThan(5_000L);
    }
  }

  static long millisToClose(Socket s, int timeoutMillis) throws IOException {
    long start = System.nanoTime();
    s.setSoTimeout(timeoutMillis);
    assertThat(s.getInputStream().read()).isEqualTo(-1);
    return (System.nanoTime() - start) / 1_000_000;
  }

  double metric(String name) throws Exception {
    for (String line : adminGet("/metrics").body().split("\n")) {
      if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return -1;
  }
}
