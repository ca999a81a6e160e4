package dev.replicapool.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Over HTTP: a replica with a capacity queues beyond its workers and reports its busy share. */
class CapacityHttpTest {
  /** The TEXT form LoadReports (dataplane) parses: {@code TEXT key=number, key=number}. */
  static final String ORCA_TEXT =
      "TEXT application_utilization=[0-9]+\\.[0-9]{4}, cpu_utilization=[0-9]+\\.[0-9]{4},"
          + " rps_fractional=[0-9]+\\.[0-9], named_metrics.in_flight=[0-9]+";

  @Test
  void queuesBeyondWorkersAndReportsUtilizationOnEveryAnswer() throws Exception {
    try (SampleReplica replica = SampleReplica.start(SampleReplica.Options.of("cap"))) {
      HttpClient client = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + replica.port();
      HttpResponse<String> plain = get(client, base + "/healthz");
      assertThat(plain.headers().firstValue("endpoint-load-metrics")).isEmpty();

      replica.state().capacity(2, 20);
      List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
      long start = System.nanoTime();
      for (int i = 0; i < 20; i++) {
        all.add(
            client.sendAsync(
                HttpRequest.newBuilder(URI.create(base + "/track/" + i)).build(),
                HttpResponse.BodyHandlers.ofString()));
      }
      CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertThat(millis).isGreaterThanOrEqualTo(20 / 2 * 20 - 5); // 20 requests, 2 workers, 20 ms
      HttpResponse<String> health = get(client, base + "/healthz");
      String load = health.headers().firstValue("endpoint-load-metrics").orElseThrow();
      assertThat(load).matches(ORCA_TEXT);
      assertThat(all.get(19).join().headers().firstValue("endpoint-load-metrics"))
          .hasValueSatisfying(v -> assertThat(v).matches(ORCA_TEXT));
    }
  }

  @Test
  void saturatedNearOneThenRaisingWorkersThroughAdminLowersIt() throws Exception {
    try (SampleReplica replica = SampleReplica.start(SampleReplica.Options.of("cap"))) {
      HttpClient client = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + replica.port();
      replica.state().capacity(2, 20);
      load(client, base, 8, 1_300);
      assertThat(utilization(get(client, base + "/healthz"))).isGreaterThan(0.8);
      HttpResponse<String> raised =
          client.send(
              HttpRequest.newBuilder(URI.create(base + "/admin/capacity?workers=50&serviceMs=20"))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(raised.statusCode()).isEqualTo(200);
      assertThat(raised.body()).contains("\"workers\":50");
      load(client, base, 8, 1_300);
      assertThat(utilization(get(client, base + "/healthz"))).isLessThan(0.5);
    }
  }

  @Test
  void aReplicaToldNotToReportKeepsItsCapacityAndSaysNothing() throws Exception {
    try (SampleReplica replica = SampleReplica.start(SampleReplica.Options.of("cap"))) {
      HttpClient client = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + replica.port();
      replica.state().capacity(2, 5);
      HttpResponse<String> off =
          client.send(
              HttpRequest.newBuilder(URI.create(base + "/admin/capacity?report=false"))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(off.body()).contains("\"workers\":2", "\"reports\":false");
      assertThat(get(client, base + "/track/x").headers().firstValue("endpoint-load-metrics"))
          .isEmpty();
      HttpResponse<String> bad =
          client.send(
              HttpRequest.newBuilder(URI.create(base + "/admin/capacity?report=maybe"))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(bad.statusCode()).isEqualTo(400);
      assertThat(bad.body()).contains("report must be true or false");
    }
  }

  @Test
  void aBatchJobSetThroughAdminShowsInTheReportAndTheAgentCheck() throws Exception {
    try (SampleReplica replica = SampleReplica.start(SampleReplica.Options.of("cap"))) {
      HttpClient client = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + replica.port();
      int agent = replica.serveAgentCheck(0);
      replica.state().capacity(4, 0);
      HttpResponse<String> busy = post(client, base + "/admin/capacity?busy=3");
      assertThat(busy.statusCode()).isEqualTo(200);
      assertThat(busy.body()).contains("\"workers\":4", "\"busy\":3");
      assertThat(get(client, base + "/track/x").statusCode())
          .as("one worker still serves")
          .isEqualTo(200);
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(5))
          .untilAsserted(
              () -> {
                assertThat(utilization(get(client, base + "/healthz"))).isGreaterThan(0.7);
                assertThat(agentCheck(agent)).isIn("25%\n", "24%\n", "26%\n");
              });
      HttpResponse<String> tooMany = post(client, base + "/admin/capacity?busy=4");
      assertThat(tooMany.statusCode()).isEqualTo(400);
      assertThat(tooMany.body()).contains("busy must be 0 to 3");
      HttpResponse<String> fewer = post(client, base + "/admin/capacity?workers=2&busy=1");
      assertThat(fewer.body())
          .as("busy lowered before workers")
          .contains("\"workers\":2", "\"busy\":1");
    }
  }

  private static HttpResponse<String> post(HttpClient client, String url) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void answersHaproxysAgentCheckOnItsOwnPort() throws Exception {
    try (SampleReplica replica = SampleReplica.start(SampleReplica.Options.of("cap"))) {
      int port = replica.serveAgentCheck(0);
      assertThat(replica.agentAddress()).isEqualTo("127.0.0.1:" + port);
      assertThat(agentCheck(port)).as("no capacity: full weight").isEqualTo("100%\n");
      replica.state().capacity(4, 0);
      assertThat(agentCheck(port)).isEqualTo("100%\n");
    }
  }

  /** What HAProxy reads: the agent writes one line and closes. */
  private static String agentCheck(int port) throws Exception {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
      return new String(
          s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
    }
  }

  /** {@code loops} clients each sending one request after another for {@code millis}. */
  private static void load(HttpClient client, String base, int loops, long millis) {
    long end = System.nanoTime() + millis * 1_000_000;
    List<CompletableFuture<Void>> all = new ArrayList<>();
    for (int i = 0; i < loops; i++) {
      all.add(
          CompletableFuture.runAsync(
              () -> {
                while (System.nanoTime() < end) {
                  try {
                    get(client, base + "/track/x");
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                }
              }));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
  }

  private static double utilization(HttpResponse<String> response) {
    String v = response.headers().firstValue("endpoint-load-metrics").orElseThrow();
    assertThat(v).matches(ORCA_TEXT);
    int at = v.indexOf("cpu_utilization=") + "cpu_utilization=".length();
    return Double.parseDouble(v.substring(at, v.indexOf(',', at)));
  }

  private static HttpResponse<String> get(HttpClient client, String url) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
