package dev.replicapool.operator.probing;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The members of the probing benchmark: {@code count} HTTP servers on 127.0.0.1, each on its own
 * port chosen by the kernel, all answering 200 "ok" on one event loop. Writes the ports, one per
 * line, to {@code portsFile}, then runs until its standard input closes (the benchmark ends) or
 * {@code maxSeconds} pass, whichever comes first.
 *
 * <p>Runs in its own JVM so that the benchmark's CPU and heap figures are the prober's alone.
 * Usage: {@code ProbeBenchServers count portsFile maxSeconds}
 */
public final class ProbeBenchServers {
  private ProbeBenchServers() {}

  public static void main(String[] args) throws Exception {
    int count = Integer.parseInt(args[0]);
    Path portsFile = Path.of(args[1]);
    long maxSeconds = Long.parseLong(args[2]);
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    List<Future<HttpServer>> listening = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      listening.add(
          vertx
              .createHttpServer()
              .requestHandler(r -> r.response().end("ok"))
              .listen(0, "127.0.0.1"));
    }
    Future.all(listening).toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
    String ports =
        listening.stream()
            .map(f -> Integer.toString(f.result().actualPort()))
            .collect(Collectors.joining("\n"));
    Path tmp = portsFile.resolveSibling(portsFile.getFileName() + ".tmp");
    Files.writeString(tmp, ports + "\n", StandardCharsets.US_ASCII);
    Files.move(tmp, portsFile);

    Thread watchdog =
        new Thread(
            () -> {
              try {
                while (System.in.read() >= 0) {
                  // the parent keeps stdin open while it runs
                }
              } catch (Exception ignored) {
                // parent gone
              }
              System.exit(0);
            });
    watchdog.setDaemon(true);
    watchdog.start();
    Thread.sleep(TimeUnit.SECONDS.toMillis(maxSeconds)); // a lifetime bound, not a wait
    System.exit(0);
  }
}
