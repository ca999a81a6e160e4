package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.replicapool.api.v1alpha1.Capacity;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.testing.ReplicaProcess;
import java.io.File;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The monitoring Component with a real Prometheus server (Debian's 2.42, from the package that
 * scripts/ensure-tools.sh installs for promtool) scraping a real operator and data plane every
 * second: both targets up, every alert rule loaded and evaluated without error, every dashboard
 * query answered, those about a serving pool with its series; then, once one member of a pool whose
 * capacity block needs two died, the capacity alert fires, and once both died, the pool's other
 * alerts, each with its {@code pool} label. The rules are the Component's with their {@code for:}
 * cut to 0s: their expressions and labels are what is tested here, the wait is promtool's
 * (MonitoringComponentTest).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PrometheusServerIT {
  static SystemHarness h;
  static List<ReplicaProcess> replicas;
  static Process prometheus;
  static Path dir;
  static int port;
  static String pool;
  static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    MonitoringComponentTest.readRule();
    String binary = prometheusBinary();
    h = new SystemHarness("prom");
    replicas = h.replicas("p1", "p2");
    ReplicaPool watched = h.pool("watched", replicas);
    watched.getSpec().capacity = new Capacity(); // 300 req/s at peak, 400 each at 50 %: 2 replicas
    watched.getSpec().capacity.peakRequestsPerSecond = 300.0;
    watched.getSpec().capacity.perReplicaRequestsPerSecond = 400.0;
    h.client.resource(watched).create();
    h.awaitReadyAndSynced("watched");
    pool = h.namespace + "/watched";
    for (int i = 0; i < 20; i++) {
      assertThat(h.get("watched.local", "/").status()).isEqualTo(200); // series to query
    }

    dir = Files.createTempDirectory("replicapool-prometheus-");
    JsonNode spec = MonitoringComponentTest.rule.path("spec").deepCopy();
    for (JsonNode group : spec.path("groups")) {
      for (JsonNode r : group.path("rules")) {
        ((ObjectNode) r).put("for", "0s");
      }
    }
    MonitoringComponentTest.YAML.writeValue(dir.resolve("rules.yaml").toFile(), spec);
    port = ReplicaProcess.freePort("127.0.0.1");
    Files.writeString(
        dir.resolve("prometheus.yml"),
        "global:\n"
            + "  scrape_interval: 1s\n"
            + "  evaluation_interval: 1s\n"
            + "rule_files: [rules.yaml]\n"
            + "scrape_configs:\n"
            + "  - job_name: replicapool-operator\n"
            + "    static_configs: [{targets: ['127.0.0.1:"
            + h.operator.adminPort()
            + "']}]\n"
            + "  - job_name: replicapool-dataplane\n"
            + "    static_configs: [{targets: ['127.0.0.1:"
            + h.dataPlane.adminPort()
            + "']}]\n");
    prometheus =
        new ProcessBuilder(
                binary,
                "--config.file=prometheus.yml",
                "--storage.tsdb.path=data",
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn")
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("prometheus.log").toFile())
            .start();
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptionsInstanceOf(java.net.ConnectException.class) // still starting
        .untilAsserted(
            () -> {
              assertThat(prometheus.isAlive())
                  .as("prometheus runs: %s", Files.readString(dir.resolve("prometheus.log")))
                  .isTrue();
              // 503 "Service Unavailable" until its storage and rules are loaded
              assertThat(get("/-/ready").statusCode()).isEqualTo(200);
            });
  }

  @AfterAll
  static void stop() throws Exception {
    if (prometheus != null) {
      prometheus.destroy();
      if (!prometheus.waitFor(10, TimeUnit.SECONDS)) {
        prometheus.destroyForcibly();
      }
    }
    if (h != null) {
      h.close();
    }
    if (dir != null) {
      try (var paths = Files.walk(dir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  @Order(1)
  void bothTargetsAreScrapedAndEveryRuleEvaluates() {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Map<String, String> health = new TreeMap<>();
              for (JsonNode t : api("/api/v1/targets").path("data").path("activeTargets")) {
                health.put(
                    t.path("labels").path("job").asText(),
                    t.path("health").asText() + " " + t.path("lastError").asText());
              }
              assertThat(health)
                  .containsEntry("replicapool-operator", "up ")
                  .containsEntry("replicapool-dataplane", "up ");
            });
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Map<String, String> rules = new TreeMap<>();
              for (JsonNode g : api("/api/v1/rules").path("data").path("groups")) {
                for (JsonNode r : g.path("rules")) {
                  rules.put(
                      r.path("name").asText(),
                      r.path("health").asText() + " " + r.path("lastError").asText());
                }
              }
              assertThat(rules.keySet()).isEqualTo(MonitoringComponentTest.alerts().keySet());
              assertThat(rules).allSatisfy((name, health) -> assertThat(health).isEqualTo("ok "));
            });
  }

  /**
   * What may have no series here: failures, ejections, retries, hedges and a queue this pool never
   * had, load reports its replicas do not send, and a count of disconnected data planes.
   */
  static final Set<String> MAY_BE_EMPTY =
      Set.of(
          "Probe failures by cause [A]",
          "5xx ratio [A]",
          "Ejections by member [A]",
          "Reported utilization by member [A]",
          "Retries by reason [A]",
          "Hedges by outcome [A]",
          "Retry budget exhausted [A]",
          "Queue outcomes [A]",
          "Queue depth [A]",
          "Data planes connected [B]");

  /**
   * Every panel's query is answered by the real server, and has series unless it is about something
   * this pool never had: a query that matches nothing by a misspelt name or label shows.
   */
  @Test
  @Order(2)
  void everyDashboardQueryIsAnsweredWithSeries() {
    // rate() needs two scrapes of a counter inside its window: the first seconds may lack them.
    await()
        .atMost(Duration.ofSeconds(45))
        .untilAsserted(() -> assertThat(queriesWithoutSeries()).isSubsetOf(MAY_BE_EMPTY));
  }

  /**
   * Asks the server every panel's query (each must be answered); those without series, as "title
   * [refId]".
   */
  static List<String> queriesWithoutSeries() throws Exception {
    List<String> empty = new ArrayList<>();
    int queries = 0;
    File[] files = MonitoringComponentTest.DASHBOARDS.toFile().listFiles();
    assertThat(files).isNotEmpty();
    for (File file : files) {
      JsonNode dashboard = MonitoringComponentTest.JSON.readTree(file);
      for (JsonNode panel : MonitoringComponentTest.panels(dashboard)) {
        for (JsonNode t : panel.path("targets")) {
          String expr =
              t.path("expr")
                  .asText()
                  .replace("$__rate_interval", "1m")
                  .replace("$pool", pool.replace(".", "\\\\.")); // RE2 in a PromQL string
          JsonNode answer = api("/api/v1/query?query=" + encode(expr));
          assertThat(answer.path("status").asText())
              .as("%s \"%s\": %s", file.getName(), panel.path("title").asText(), expr)
              .isEqualTo("success");
          queries++;
          if (answer.path("data").path("result").isEmpty()) {
            empty.add(panel.path("title").asText() + " [" + t.path("refId").asText() + "]");
          }
        }
      }
    }
    System.out.println(
        "FIGURE prometheus: "
            + queries
            + " dashboard queries answered; without series now: "
            + empty);
    return empty;
  }

  /** One member of a pool that needs two dies: the capacity alert; the other too: the rest. */
  @Test
  @Order(3)
  void aPoolBelowItsCapacityThenWithoutMembersFiresItsAlertsWithItsName() throws Exception {
    replicas.get(0).kill();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(firing()).containsEntry("ReplicaPoolBelowCapacity", pool));
    assertThat(firing()).doesNotContainKey("ReplicaPoolNoRoutableMembers");

    replicas.get(1).kill();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(firing())
                    .containsEntry("ReplicaPoolNoRoutableMembers", pool)
                    .containsEntry("ReplicaPoolNotReady", pool));
  }

  /** The alerts firing now, by name, with their pool label. */
  static Map<String, String> firing() throws Exception {
    Map<String, String> firing = new TreeMap<>();
    for (JsonNode a : api("/api/v1/alerts").path("data").path("alerts")) {
      if (a.path("state").asText().equals("firing")) {
        firing.put(
            a.path("labels").path("alertname").asText(), a.path("labels").path("pool").asText());
      }
    }
    return firing;
  }

  // ---------------------------------------------------------------- the server

  static JsonNode api(String pathAndQuery) throws Exception {
    HttpResponse<String> r = get(pathAndQuery);
    assertThat(r.statusCode()).as("%s: %s", pathAndQuery, r.body()).isEqualTo(200);
    return MonitoringComponentTest.JSON.readTree(r.body());
  }

  static HttpResponse<String> get(String pathAndQuery) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /**
   * Next to promtool, from the same package: missing, the test fails in CI and aborts elsewhere.
   */
  static String prometheusBinary() {
    String promtool = MonitoringComponentTest.promtool();
    Path beside = Path.of(promtool).resolveSibling("prometheus");
    return promtool.contains("/") && Files.isExecutable(beside) ? beside.toString() : "prometheus";
  }
}
