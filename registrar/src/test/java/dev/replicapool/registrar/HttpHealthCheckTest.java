package dev.replicapool.registrar;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HttpHealthCheckTest {
  private HttpServer server;
  private final AtomicInteger status = new AtomicInteger(200);
  private final CountDownLatch release = new CountDownLatch(1);

  @BeforeEach
  void startServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/healthz",
        exchange -> {
          exchange.sendResponseHeaders(status.get(), -1);
          exchange.close();
        });
    server.createContext(
        "/hang",
        exchange -> {
          try {
            release.await(5, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
  }

  @AfterEach
  void stopServer() {
    release.countDown();
    server.stop(0);
  }

  private URI url(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  @Test
  void twoHundredsAreHealthyEverythingElseIsNot() {
    HttpHealthCheck check = new HttpHealthCheck(url("/healthz"), Duration.ofMillis(500));
    assertThat(check.getAsBoolean()).isTrue();
    status.set(204);
    assertThat(check.getAsBoolean()).isTrue();
    status.set(503);
    assertThat(check.getAsBoolean()).isFalse();
    status.set(301);
    assertThat(check.getAsBoolean()).isFalse();
    status.set(200);
    assertThat(check.getAsBoolean()).isTrue();
  }

  @Test
  void aMissingPathIsUnhealthy() {
    assertThat(new HttpHealthCheck(url("/nothing"), Duration.ofMillis(500)).getAsBoolean())
        .isFalse();
  }

  @Test
  void noAnswerWithinTheTimeoutIsUnhealthyAndDoesNotBlockLonger() {
    HttpHealthCheck check = new HttpHealthCheck(url("/hang"), Duration.ofMillis(200));
    long start = System.nanoTime();
    assertThat(check.getAsBoolean()).isFalse();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
  }

  @Test
  void aRefusedConnectionIsUnhealthy() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    URI closed = URI.create("http://127.0.0.1:" + port + "/healthz");
    assertThat(new HttpHealthCheck(closed, Duration.ofMillis(300)).getAsBoolean()).isFalse();
  }
}
