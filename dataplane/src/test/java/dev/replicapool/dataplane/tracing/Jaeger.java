package dev.replicapool.dataplane.tracing;

import static org.awaitility.Awaitility.await;

import dev.replicapool.testing.ReplicaProcess;
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
final class Jaeger implements AutoCloseable {
  static final Path BIN = Path.of(System.getProperty("user.home"), ".local", "bin", "jaeger");

  final int otlpPort = ReplicaProcess.freePort("127.0.0.1");
  final int queryPort = ReplicaProcess.freePort("127.0.0.1");
  final int queryGrpcPort = ReplicaProcess.freePort("127.0.0.1");
  private final HttpClient http = HttpClient.newHttpClient();
  private final Process process;

  Jaeger(Path dir) throws Exception {
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

  URI otlp() {
    return URI.create("http://127.0.0.1:" + otlpPort);
  }

  HttpResponse<String> get(String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + queryPort + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
