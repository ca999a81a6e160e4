package dev.replicapool.dataplane.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ClientConnections}: the connection limit; the lazy timer of the header timeouts: a
 * deadline set after the pending timer is kept by setting the timer again when it fires early, and
 * a deadline set before it is not delayed by it; and no request is processed behind a response that
 * said {@code Connection: close}. A server with h2c off, as ListenerManager wires it, and a raw
 * socket as the client.
 */
class ClientConnectionsTest {
  Vertx vertx = Vertx.vertx();

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  /**
   * A server with h2c off, as ListenerManager wires it: every connection and request passes {@code
   * connections} first; admitted requests go to {@code handler}.
   */
  int serve(ClientConnections connections, Handler<HttpServerRequest> handler) {
    HttpServer s =
        vertx
            .createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(false))
            .connectionHandler(connections::connected)
            .requestHandler(
                req -> {
                  if (connections.request(req, false)) {
                    handler.handle(req);
                  }
                });
    return s.listen(0, "127.0.0.1").await().actualPort();
  }

  int server(long firstMillis, long keepAliveMillis) {
    return serve(
        new ClientConnections(vertx, firstMillis, keepAliveMillis, 0),
        req -> req.response().end("ok"));
  }

  /**
   * A server that records the path of every request it processes and answers {@code /close} with
   * {@code Connection: close}, as the proxy's refusals do.
   */
  int recordingServer(List<String> processed) {
    return serve(
        new ClientConnections(vertx, 10_000, 10_000, 0),
        req -> {
          processed.add(req.path());
          if (req.path().equals("/close")) {
            req.response().putHeader("connection", "close");
          }
          req.response().end("ok");
        });
  }

  /** Sends the requests in one write (pipelined) and reads until the server closes. */
  static String pipeline(int port, String... paths) throws IOException {
    StringBuilder requests = new StringBuilder();
    for (String p : paths) {
      requests.append("GET ").append(p).append(" HTTP/1.1\r\nHost: t\r\n\r\n");
    }
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(5_000);
      s.getOutputStream().write(requests.toString().getBytes(StandardCharsets.ISO_8859_1));
      s.shutdownOutput();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  @Test
  void pipelinedRequestsAreProcessedInOrder() throws Exception {
    List<String> processed = new CopyOnWriteArrayList<>();
    String answers = pipeline(recordingServer(processed), "/a", "/b", "/c");
    assertThat(processed).containsExactly("/a", "/b", "/c");
    assertThat(answers.split("HTTP/1.1 200", -1)).hasSize(4);
  }

  @Test
  void noRequestIsProcessedBehindAResponseThatSaidClose() throws Exception {
    List<String> processed = new CopyOnWriteArrayList<>();
    String answers = pipeline(recordingServer(processed), "/a", "/close", "/hidden", "/hidden2");
    assertThat(processed).containsExactly("/a", "/close");
    assertThat(answers.split("HTTP/1.1 200", -1)).hasSize(3);
  }

  @Test
  void connectionsBeyondTheLimitAreClosedAndCountedUntilOneCloses() throws Exception {
    ClientConnections limited = new ClientConnections(vertx, 10_000, 10_000, 2);
    int port = serve(limited, req -> req.response().end("ok"));
    try (Socket a = new Socket("127.0.0.1", port);
        Socket b = new Socket("127.0.0.1", port)) {
      get(a);
      get(b);
      assertThat(limited.open()).isEqualTo(2);
      try (Socket c = new Socket("127.0.0.1", port)) {
        assertThat(millisToClose(c, 5_000)).isLessThan(4_000L);
      }
      assertThat(limited.refused()).isEqualTo(1);
      get(a); // the admitted ones are served all along
      b.close();
      await().atMost(Duration.ofSeconds(5)).until(() -> limited.open() == 1);
      try (Socket d = new Socket("127.0.0.1", port)) {
        get(d);
        assertThat(limited.open()).isEqualTo(2);
      }
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> limited.open() == 0);
    assertThat(limited.refused()).isEqualTo(1);
  }

  static void get(Socket s) throws IOException {
    s.getOutputStream()
        .write("GET / HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    // "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok": read up to the body
    InputStream in = s.getInputStream();
    StringBuilder sb = new StringBuilder();
    while (!sb.toString().endsWith("\r\n\r\nok")) {
      int c = in.read();
      assertThat(c).as("response so far: %s", sb).isNotNegative();
      sb.append((char) c);
    }
    assertThat(sb.toString()).startsWith("HTTP/1.1 200");
  }

  /** Milliseconds until the server closes the connection, reading with the given timeout. */
  static long millisToClose(Socket s, int timeoutMillis) throws IOException {
    long start = System.nanoTime();
    s.setSoTimeout(timeoutMillis);
    assertThat(s.getInputStream().read()).isEqualTo(-1);
    return (System.nanoTime() - start) / 1_000_000;
  }

  @Test
  void aConnectionWithoutRequestIsClosedAfterTheFirstDeadline() throws Exception {
    int port = server(300, 10_000);
    try (Socket s = new Socket("127.0.0.1", port)) {
      assertThat(millisToClose(s, 5_000)).isBetween(200L, 4_000L);
    }
  }

  @Test
  void aKeepAliveDeadlineEarlierThanThePendingTimerIsNotDelayedByIt() throws Exception {
    int port = server(8_000, 300); // the connect-time timer is due in 8 s
    try (Socket s = new Socket("127.0.0.1", port)) {
      get(s);
      assertThat(millisToClose(s, 7_000)).isBetween(200L, 5_000L);
    }
  }

  @Test
  void aKeepAliveDeadlineLaterThanThePendingTimerIsKept() throws Exception {
    int port = server(300, 1_500); // the connect-time timer fires 300 ms in, too early
    try (Socket s = new Socket("127.0.0.1", port)) {
      get(s);
      s.setSoTimeout(900);
      long start = System.nanoTime();
      boolean open;
      try {
        open = s.getInputStream().read() != -1;
      } catch (SocketTimeoutException e) {
        open = true;
      }
      assertThat(open).as("open 900 ms after the response, deadline 1.5 s").isTrue();
      long closed = (System.nanoTime() - start) / 1_000_000 + millisToClose(s, 10_000);
      assertThat(closed).isLessThan(8_000L);
    }
  }

  @Test
  void requestsInTimeKeepTheConnection() throws Exception {
    int port = server(600, 600);
    try (Socket s = new Socket("127.0.0.1", port)) {
      for (int i = 0; i < 10; i++) {
        get(s);
        Thread.sleep(100); // the client's pace between requests (the stimulus), not a wait
      }
      get(s); // still the same connection, past its first deadline
      assertThat(millisToClose(s, 5_000)).isBetween(500L, 4_000L);
    }
  }
}
