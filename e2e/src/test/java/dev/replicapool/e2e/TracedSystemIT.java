package dev.replicapool.e2e;

import static dev.replicapool.testing.Jaeger.parentOf;
import static dev.replicapool.testing.Jaeger.tag;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.dataplane.tracing.TracingConfig;
import dev.replicapool.testing.Jaeger;
import dev.replicapool.testing.ReplicaProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole system traced into a real Jaeger v2: a real API server, the operator and a data plane
 * both exporting by OTLP/HTTP, replicas as processes. The operator's reconcile of a new pool is a
 * trace whose push span lasts until the data plane applied the snapshot; a member the prober finds
 * dead is a push trace of its own; a request through the data plane is a trace of its own.
 */
class TracedSystemIT {
  @TempDir static Path dir;
  static Jaeger jaeger;
  static SystemHarness h;
  static List<ReplicaProcess> replicas;

  @BeforeAll
  static void start() throws Exception {
    assertThat(Jaeger.BIN).as("jaeger: run scripts/provision-jaeger.sh").isExecutable();
    jaeger = new Jaeger(dir);
    h =
        new SystemHarness(
            "traced",
            c -> c.withTracing(jaeger.otlp(), 1.0),
            new TracingConfig(jaeger.otlp(), 1.0, TracingConfig.DEFAULT_QUEUE));
    replicas = h.replicas("t1", "t2");
  }

  @AfterAll
  static void stop() throws Exception {
    if (h != null) {
      h.close();
    }
    jaeger.close();
  }

  @Test
  void reconcilesPushesAndRequestsAreTraces() throws Exception {
    h.client.resource(h.pool("tr", replicas)).create();
    h.awaitReadyAndSynced("tr");
    String pool = h.namespace + "/tr";

    // A reconcile of the pool with a push below it that ended once the data plane applied it.
    JsonObject pushed =
        await("the reconcile that pushed, in jaeger")
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(300))
            .ignoreExceptions()
            .until(
                () -> firstSpan("replicapool-operator", "push", pool, "converged", true),
                s -> s != null);
    assertThat(tag(pushed, "replicapool.snapshot.version")).isNotNull();

    // A replica killed: the prober's push is a trace of its own (no reconcile above it).
    replicas.get(0).close();
    JsonObject fromProbe =
        await("the probe's push, in jaeger")
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(300))
            .ignoreExceptions()
            .until(
                () -> firstSpan("replicapool-operator", "push", pool, "converged", false),
                s -> s != null);
    assertThat(parentOf(fromProbe)).isNull();

    // A request through the data plane: its server span and the try to a live member.
    assertThat(h.get("tr.local", "/traced").status()).isEqualTo(200);
    JsonArray request =
        await("the request's trace, in jaeger")
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(300))
            .ignoreExceptions()
            .until(() -> traceWithPath("replicapool-dataplane", "/traced"), t -> t != null);
    List<String> kinds = new ArrayList<>();
    request.forEach(s -> kinds.add(String.valueOf(tag((JsonObject) s, "span.kind"))));
    assertThat(kinds).contains("server", "client");
  }

  /**
   * The first {@code operation} span of {@code service} for {@code pool} with that push outcome,
   * whose parent is a reconcile span ({@code underReconcile}) or none; null while there is none.
   */
  static JsonObject firstSpan(
      String service, String operation, String pool, String outcome, boolean underReconcile)
      throws Exception {
    for (Object t : traces(service, operation)) {
      JsonArray spans = ((JsonObject) t).getJsonArray("spans");
      for (Object o : spans) {
        JsonObject s = (JsonObject) o;
        if (!operation.equals(s.getString("operationName"))
            || !pool.equals(tag(s, "replicapool.pool"))
            || !outcome.equals(tag(s, "replicapool.push.outcome"))) {
          continue;
        }
        String parent = parentOf(s);
        boolean reconcileParent =
            parent != null
                && spans.stream()
                    .map(x -> (JsonObject) x)
                    .anyMatch(
                        x ->
                            parent.equals(x.getString("spanID"))
                                && "reconcile".equals(x.getString("operationName"))
                                && pool.equals(tag(x, "replicapool.pool")));
        if (reconcileParent == underReconcile) {
          return s;
        }
      }
    }
    return null;
  }

  static JsonArray traceWithPath(String service, String path) throws Exception {
    for (Object t : traces(service, null)) {
      JsonArray spans = ((JsonObject) t).getJsonArray("spans");
      if (spans.stream().anyMatch(s -> path.equals(tag((JsonObject) s, "url.path")))) {
        return spans;
      }
    }
    return null;
  }

  static JsonArray traces(String service, String operation) throws Exception {
    var r =
        jaeger.get(
            "/api/traces?service="
                + service
                + (operation == null ? "" : "&operation=" + operation)
                + "&limit=200&lookback=1h");
    assertThat(r.statusCode()).isEqualTo(200);
    return new JsonObject(r.body()).getJsonArray("data");
  }
}
