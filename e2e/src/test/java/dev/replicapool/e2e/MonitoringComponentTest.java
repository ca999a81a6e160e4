package dev.replicapool.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RequestQueue;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import dev.replicapool.dataplane.admin.DataPlaneMetrics;
import dev.replicapool.dataplane.config.ConfigStore;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.operator.health.Transition;
import dev.replicapool.operator.metrics.OperatorMetrics;
import dev.replicapool.testing.Kubectl;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Component components/monitoring: its alert rules checked and unit-tested by the real {@code
 * promtool}, every metric its rules and dashboards query found in a real scrape of the data plane's
 * and the operator's registries, and the Component rendered with the base by the real {@code
 * kubectl kustomize}, its PodMonitors checked against the Deployments' labels and port names. No
 * API server: the Prometheus Operator's kinds are not installed on one.
 */
class MonitoringComponentTest {
  static final Path COMPONENT =
      RenderedManifests.manifestsDir().resolve("components").resolve("monitoring");
  static final Path RULE = COMPONENT.resolve("prometheusrule.yaml");
  static final Path DASHBOARDS = COMPONENT.resolve("dashboards");
  static final Path RULE_TESTS =
      RenderedManifests.repoRoot().resolve("e2e/src/test/resources/monitoring/alerts-test.yaml");
  static final Path OBSERVABILITY = RenderedManifests.repoRoot().resolve("docs/OBSERVABILITY.md");

  static final Pattern METRIC = Pattern.compile("\\breplicapool_[a-z0-9_]+");
  // The label `pool` in a query (not the "pool" inside "replicapool_...").
  static final Pattern BY_POOL = Pattern.compile("\\bpool\\b");
  static final TypeReference<Map<String, String>> LABELS = new TypeReference<>() {};
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  static final ObjectMapper JSON = new ObjectMapper();

  static JsonNode rule;

  @BeforeAll
  static void readRule() throws IOException {
    rule = YAML.readTree(RULE.toFile());
  }

  // ---------------------------------------------------------------- promtool

  @Test
  void promtoolAcceptsTheRules() throws IOException {
    Path dir = rulesWithTests();
    Result check = run(dir, promtool(), "check", "rules", "rules.yaml");
    assertThat(check.exitCode()).as(check.output()).isZero();
    assertThat(check.output()).contains("SUCCESS: " + alerts().size() + " rules found");
  }

  @Test
  void promtoolUnitTestsPassForEveryAlert() throws IOException {
    Path dir = rulesWithTests();
    Result test = run(dir, promtool(), "test", "rules", "alerts-test.yaml");
    assertThat(test.exitCode()).as(test.output()).isZero();
    assertThat(test.output()).contains("SUCCESS");

    // Each alert has a case where it fires and one where it must not.
    Set<String> fires = new TreeSet<>();
    Set<String> staysQuiet = new TreeSet<>();
    for (JsonNode group : YAML.readTree(RULE_TESTS.toFile()).path("tests")) {
      for (JsonNode c : group.path("alert_rule_test")) {
        String alert = c.path("alertname").asText();
        (c.path("exp_alerts").isEmpty() ? staysQuiet : fires).add(alert);
      }
    }
    assertThat(fires).as("alerts with a firing case").isEqualTo(alerts().keySet());
    assertThat(staysQuiet).as("alerts with a quiet case").isEqualTo(alerts().keySet());
  }

  @Test
  void everyAlertHasASeverityAForAndAnnotationsNamingWhatFailed() throws IOException {
    String doc = Files.readString(OBSERVABILITY);
    alerts()
        .forEach(
            (name, a) -> {
              assertThat(a.path("labels").path("severity").asText())
                  .as(name)
                  .isIn("critical", "warning");
              assertThat(Duration.parse("PT" + a.path("for").asText().toUpperCase()))
                  .as("%s waits before firing, so that it does not flap", name)
                  .isGreaterThanOrEqualTo(Duration.ofMinutes(2));
              String summary = a.path("annotations").path("summary").asText();
              String description = a.path("annotations").path("description").asText();
              assertThat(summary).as(name).isNotBlank();
              assertThat(description).as(name).isNotBlank();
              // Where the series say which pool, the annotations do too.
              if (BY_POOL.matcher(a.path("expr").asText()).find()) {
                assertThat(summary).as(name).contains("{{ $labels.pool }}");
                assertThat(description).as(name).contains("{{ $labels.pool }}");
              }
              assertThat(doc).as("docs/OBSERVABILITY.md has a runbook for %s", name).contains(name);
            });
  }

  /**
   * The dashboards' queries are PromQL that Prometheus parses: promtool checks them as recording
   * rules, with Grafana's variables replaced by what they stand for.
   */
  @Test
  void promtoolParsesEveryDashboardQuery() throws IOException {
    List<Map<String, String>> records = new ArrayList<>();
    try (var files = Files.list(DASHBOARDS)) {
      for (Path file : files.sorted().toList()) {
        for (JsonNode panel : panels(JSON.readTree(file.toFile()))) {
          for (JsonNode t : panel.path("targets")) {
            String expr =
                t.path("expr").asText().replace("$__rate_interval", "5m").replace("$pool", ".*");
            records.add(Map.of("record", "dashboard_query_" + records.size(), "expr", expr));
          }
        }
      }
    }
    assertThat(records).isNotEmpty();
    Path dir = Files.createTempDirectory("replicapool-dashboard-queries-");
    YAML.writeValue(
        dir.resolve("queries.yaml").toFile(),
        Map.of("groups", List.of(Map.of("name", "dashboards", "rules", records))));
    Result check = run(dir, promtool(), "check", "rules", "queries.yaml");
    assertThat(check.exitCode()).as(check.output()).isZero();
    assertThat(check.output()).contains("SUCCESS: " + records.size() + " rules found");
  }

  // ---------------------------------------------------------------- metric names

  @Test
  void everyMetricTheRulesAndDashboardsQueryIsOneTheCodeEmits() throws Exception {
    Set<String> emitted = new TreeSet<>(emittedNames());
    // Spot checks that the scrape is a real one: each kind of meter and both registries.
    assertThat(emitted)
        .contains(
            "replicapool_requests_seconds_bucket",
            "replicapool_retries_total",
            "replicapool_routable_members",
            "replicapool_queue_depth",
            "replicapool_reconcile_seconds",
            "replicapool_members");

    Map<String, Set<String>> queried = new java.util.TreeMap<>();
    alerts().forEach((name, a) -> queried.put("alert " + name, metricsIn(a.path("expr").asText())));
    try (var files = Files.list(DASHBOARDS)) {
      for (Path file : files.sorted().toList()) {
        JsonNode dashboard = JSON.readTree(file.toFile());
        for (JsonNode v : dashboard.path("templating").path("list")) {
          queried.put(
              file.getFileName() + " variable " + v.path("name").asText(),
              metricsIn(v.path("query").path("query").asText()));
        }
        for (JsonNode panel : panels(dashboard)) {
          String title = file.getFileName() + " panel \"" + panel.path("title").asText() + "\"";
          assertThat(panel.path("targets")).as(title + " has queries").isNotEmpty();
          Set<String> names = new TreeSet<>();
          for (JsonNode t : panel.path("targets")) {
            names.addAll(metricsIn(t.path("expr").asText()));
          }
          assertThat(names).as(title + " queries a ReplicaPool metric").isNotEmpty();
          queried.put(title, names);
        }
      }
    }
    List<String> unknown = new ArrayList<>();
    queried.forEach(
        (where, names) ->
            names.stream()
                .filter(n -> !emitted.contains(n))
                .forEach(n -> unknown.add(where + ": " + n)));
    assertThat(unknown).as("metrics no code emits (emitted: %s)", emitted).isEmpty();
  }

  static Set<String> metricsIn(String promql) {
    return METRIC.matcher(promql).results().map(MatchResult::group).collect(Collectors.toSet());
  }

  /** The panels of a dashboard, those inside collapsed rows too, without the rows. */
  static List<JsonNode> panels(JsonNode dashboard) {
    List<JsonNode> panels = new ArrayList<>();
    for (JsonNode p : dashboard.path("panels")) {
      if (p.path("type").asText().equals("row")) {
        p.path("panels").forEach(panels::add);
      } else {
        panels.add(p);
      }
    }
    return panels;
  }

  /**
   * The series names of a real scrape of both registries after every kind of event they count, so
   * that each meter exists: names as the Prometheus registry writes them (_total, _seconds,
   * _bucket...), not as the code spells them.
   */
  static Set<String> emittedNames() throws Exception {
    Set<String> names = new TreeSet<>();
    OperatorMetrics operator = new OperatorMetrics();
    operator.probe("a/p", null);
    operator.probe("a/p", "timeout");
    operator.transition(
        "a/p", new Transition(MemberState.Pending, MemberState.Healthy, "probes", Instant.now()));
    operator.members("a/p", List.<OperatorMetrics.HasState>of(() -> MemberState.Healthy));
    operator.reconcileDuration(1_000_000);
    operator.pushConvergence("a/p", 12_000_000);
    operator.poolStatus("a/p", Map.of("Ready", true), 3, 2);
    names.addAll(sampleNames(operator.scrape()));

    Vertx vertx = Vertx.vertx();
    ConfigStore[] store = new ConfigStore[1];
    DataPlaneMetrics dataPlane = new DataPlaneMetrics(() -> store[0].table(), System::nanoTime);
    try {
      store[0] =
          new ConfigStore(
              vertx, Set.of(), System::nanoTime, () -> new Random(1), dataPlane::eventsFor);
      store[0].addObserver(dataPlane);
      RequestQueue queue = new RequestQueue();
      queue.maxPending = 10;
      queue.timeoutMillis = 1000L;
      store[0]
          .apply(
              PoolSnapshotBuilder.builder()
                  .pool("a/p")
                  .version(1)
                  .policy(RoutingPolicy.RoundRobin)
                  .hosts(List.of())
                  .members(List.of(new MemberSnapshot("10.0.0.1", 1, 1.0, MemberState.Healthy)))
                  .maxRequestsPerMember(1)
                  .queue(queue)
                  .build())
          .await();
      Endpoint member = store[0].table().pool("a/p").router().endpoints().get(0);
      dataPlane.controlPlaneConnected(true);
      dataPlane.clientConnections(() -> 1, () -> 0);
      dataPlane.clientProtocolError("h2", "PROTOCOL_ERROR");
      dataPlane.accessLogDropped(() -> 0);
      dataPlane.tunnels(() -> 0);
      dataPlane.response("a/p", 200, 1_000_000);
      dataPlane.attempt("a/p", member, "2xx", 1_000_000);
      dataPlane.retry("a/p", "reset");
      dataPlane.hedge("a/p", "sent");
      dataPlane.budgetExhausted("a/p");
      dataPlane.queue("a/p", "queued");
      dataPlane.eventsFor("a/p").ejected(member, 1000);
      member.reportLoad(0.5, Double.NaN, System.nanoTime());
      names.addAll(sampleNames(dataPlane.scrape().toCompletableFuture().get(30, TimeUnit.SECONDS)));
    } finally {
      dataPlane.close();
      vertx.close().await();
    }
    return names;
  }

  static Set<String> sampleNames(String scrape) {
    return scrape
        .lines()
        .filter(l -> !l.isBlank() && !l.startsWith("#"))
        .map(l -> l.split("[{ ]", 2)[0])
        .collect(Collectors.toSet());
  }

  // ---------------------------------------------------------------- kustomize

  @Test
  void rendersWithTheBaseAndMonitorsThePortsTheDeploymentsName() throws IOException {
    String token = RenderedManifests.newToken();
    Path base = RenderedManifests.copyOfBase(token);
    Path overlay =
        RenderedManifests.overlayWithComponent(
            base, base.resolve("components").resolve("monitoring"), "replicapool-monitoring-");
    // kustomize needs no cluster: the kubeconfig is never read.
    Kubectl kubectl = new Kubectl(overlay.resolve("no-kubeconfig"));
    Kubectl.Result rendered = kubectl.run("kustomize", overlay.toString());
    assertThat(rendered.exitCode()).as(rendered.stderr()).isZero();
    List<JsonNode> objects = new ArrayList<>();
    YAML.readValues(YAML.createParser(rendered.stdout()), JsonNode.class)
        .forEachRemaining(objects::add);

    List<JsonNode> monitors = ofKind(objects, "PodMonitor");
    assertThat(monitors)
        .extracting(m -> m.path("metadata").path("name").asText())
        .containsExactlyInAnyOrder("replicapool-operator", "replicapool-dataplane");
    for (JsonNode monitor : monitors) {
      String name = monitor.path("metadata").path("name").asText();
      assertThat(monitor.path("metadata").path("namespace").asText())
          .isEqualTo(RenderedManifests.NAMESPACE);
      Map<String, String> selector =
          JSON.convertValue(monitor.path("spec").path("selector").path("matchLabels"), LABELS);
      List<JsonNode> selected =
          ofKind(objects, "Deployment").stream()
              .filter(
                  d ->
                      JSON.convertValue(
                              d.path("spec").path("template").path("metadata").path("labels"),
                              LABELS)
                          .entrySet()
                          .containsAll(selector.entrySet()))
              .toList();
      assertThat(selected).as("%s selects the Pods of one Deployment", name).hasSize(1);
      JsonNode pod = selected.get(0).path("spec").path("template");
      for (JsonNode endpoint : monitor.path("spec").path("podMetricsEndpoints")) {
        String port = endpoint.path("port").asText();
        JsonNode containerPort = null;
        for (JsonNode p : pod.path("spec").path("containers").get(0).path("ports")) {
          if (p.path("name").asText().equals(port)) {
            containerPort = p;
          }
        }
        assertThat(containerPort).as("%s scrapes a port its Pods name: %s", name, port).isNotNull();
        // The annotations the Deployments carry for annotation-based scraping say the same.
        JsonNode annotations = pod.path("metadata").path("annotations");
        assertThat(endpoint.path("path").asText())
            .isEqualTo(annotations.path("prometheus.io/path").asText());
        assertThat(containerPort.path("containerPort").asText())
            .isEqualTo(annotations.path("prometheus.io/port").asText());
      }
    }

    List<JsonNode> rules = ofKind(objects, "PrometheusRule");
    assertThat(rules).hasSize(1);
    assertThat(rules.get(0).path("spec")).isEqualTo(rule.path("spec"));

    List<JsonNode> configMaps = ofKind(objects, "ConfigMap");
    assertThat(configMaps).hasSize(1);
    JsonNode dashboards = configMaps.get(0);
    assertThat(dashboards.path("metadata").path("labels").path("grafana_dashboard").asText())
        .isEqualTo("1");
    try (var files = Files.list(DASHBOARDS)) {
      for (Path file : files.toList()) {
        String key = file.getFileName().toString();
        assertThat(dashboards.path("data").path(key).asText())
            .as(key)
            .isEqualTo(Files.readString(file));
        assertThat(JSON.readTree(file.toFile()).path("uid").asText())
            .as("%s has a stable uid", key)
            .isNotBlank();
      }
    }
  }

  static List<JsonNode> ofKind(List<JsonNode> objects, String kind) {
    return objects.stream().filter(o -> o.path("kind").asText().equals(kind)).toList();
  }

  // ---------------------------------------------------------------- helpers

  /** Alert name to rule, in file order. */
  static Map<String, JsonNode> alerts() {
    Map<String, JsonNode> alerts = new java.util.LinkedHashMap<>();
    for (JsonNode group : rule.path("spec").path("groups")) {
      for (Iterator<JsonNode> it = group.path("rules").elements(); it.hasNext(); ) {
        JsonNode r = it.next();
        assertThat(r.has("alert")).as("only alerts, no recording rules: %s", r).isTrue();
        assertThat(alerts.put(r.path("alert").asText(), r)).as("alert names are unique").isNull();
      }
    }
    return alerts;
  }

  /**
   * A folder holding the PrometheusRule's spec as a plain rules file (rules.yaml), the form
   * promtool reads, and the unit tests that name it.
   */
  static Path rulesWithTests() throws IOException {
    Path dir = Files.createTempDirectory("replicapool-rules-");
    YAML.writeValue(dir.resolve("rules.yaml").toFile(), rule.path("spec"));
    Files.copy(RULE_TESTS, dir.resolve("alerts-test.yaml"));
    return dir;
  }

  /**
   * promtool from PATH (scripts/ensure-tools.sh installs Debian's prometheus package for it). In CI
   * its absence fails the test; elsewhere the test is skipped, saying why.
   */
  static String promtool() {
    String promtool = System.getProperty("replicapool.promtool", "promtool");
    try {
      Process p = new ProcessBuilder(promtool, "--version").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
        return promtool;
      }
    } catch (IOException e) {
      // not installed: below
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    String why = "no promtool on PATH: run scripts/ensure-tools.sh (Debian package prometheus)";
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      fail(why);
    }
    Assumptions.abort(why);
    return null;
  }

  record Result(int exitCode, String output) {}

  static Result run(Path dir, String... command) throws IOException {
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        fail(String.join(" ", command) + " timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return new Result(p.exitValue(), output);
  }
}
