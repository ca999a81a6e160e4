package dev.replicapool.testing;

import static org.awaitility.Awaitility.await;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A real Jaeger v2 (built by scripts/provision-jaeger.sh) as a local process: in-memory storage,
 * the OTLP/HTTP receiver and the query API on free loopback ports, nothing on its well-known ports
 * (its own metrics are off), so it runs beside other tests.
 */
public final class Jaeger implements AutoCloseable {
  public static final Path BIN =
      Path.of(System.getProperty("user.home"), ".local", "bin", "jaeger");

  final int otlpPort = ReplicaProcess.freePort("127.0.0.1");
  final int queryPort = ReplicaProcess.freePort("127.0.0.1");
  final int queryGrpcPort = ReplicaProcess.freePort("127.0.0.1");
  private final HttpClient http = HttpClient.newHttpClient();
  private final Process process;

  public Jaeger(Path dir) throws Exception {
    Path config = dir.resolve("jaeger.yaml");
    Files.writeString(
        config,
        """
        service:
          extensions: [jaeger_storage, jaeger_query]
          pipelines:
            traces:
              receivers: [otlp]
              processors: [batch]
              exporters: [jaeger_storage_exporter]
          telemetry:
            metrics:
              level: none
        extensions:
          jaeger_query:
            storage:
              traces: mem
            http:
              endpoint: 127.0.0.1:%d
            grpc:
              endpoint: 127.0.0.1:%d
          jaeger_storage:
            backends:
              mem:
                memory:
                  max_traces: 10000
        receivers:
          otlp:
            protocols:
              http:
                endpoint: 127.0.0.1:%d
        processors:
          batch:
            timeout: 100ms
        exporters:
          jaeger_storage_exporter:
            trace_storage: mem
        """
            .formatted(queryPort, queryGrpcPort, otlpPort));
    process =
        new ProcessBuilder(BIN.toString(), "--config", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("jaeger.log").toFile())
            .start();
    await("jaeger's query API answers")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(() -> get("/api/services").statusCode() == 200);
  }

  public URI otlp() {
    return URI.create("http://127.0.0.1:" + otlpPort);
  }

  public HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + queryPort + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The spans Jaeger has of trace {@code traceId} (fails until it has the trace). */
  public JsonArray spans(String traceId) throws Exception {
    HttpResponse<String> r = get("/api/traces/" + traceId);
    if (r.statusCode() != 200) {
      throw new IllegalStateException("trace " + traceId + ": " + r.statusCode());
    }
    return new JsonObject(r.body()).getJsonArray("data").getJsonObject(0).getJsonArray("spans");
  }

  /** The span id of {@code span}'s parent (its CHILD_OF reference), null for a root. */
  public static String parentOf(JsonObject span) {
    JsonArray refs = span.getJsonArray("references");
    for (int i = 0; i < refs.size(); i++) {
      if ("CHILD_OF".equals(refs.getJsonObject(i).getString("refType"))) {
        return refs.getJsonObject(i).getString("spanID");
      }
    }
    return null;
  }

  /** A numeric tag (Jaeger's JSON has int64 tags as plain numbers, read as Integer when small). */
  public static Long number(JsonObject span, String key) {
    Object v = tag(span, key);
    return v == null ? null : ((Number) v).longValue();
  }

  public static Object tag(JsonObject span, String key) {
    JsonArray tags = span.getJsonArray("tags");
    for (int i = 0; i < tags.size(); i++) {
      if (key.equals(tags.getJsonObject(i).getString("key"))) {
        return tags.getJsonObject(i).getValue("value");
      }
    }
    return null;
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
