package dev.replicapool.operator.probing;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The members of the probing benchmark: {@code count} HTTP servers on 127.0.0.1, each on its own
 * port from {@code firstPort} up (ports in use are skipped), all answering 200 "ok" on one event
 * loop. Writes the ports, one per line, to {@code portsFile}, then runs until its standard input
 * closes (the benchmark ends) or {@code maxSeconds} pass, whichever comes first.
 *
 * <p>Runs in its own JVM so that the benchmark's CPU and heap figures are the prober's alone.
 * Usage: {@code ProbeBenchServers count portsFile maxSeconds firstPort}
 */
public final class ProbeBenchServers {
  private ProbeBenchServers() {}

  public static void main(String[] args) throws Exception {
    int count = Integer.parseInt(args[0]);
    Path portsFile = Path.of(args[1]);
    long maxSeconds = Long.parseLong(args[2]);
    int firstPort = Integer.parseInt(args[3]);
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1));
    // Fixed ports below the kernel's ephemeral range (32768+): a member port inside it can be
    // handed to the prober as a local port, and a connect to it then connects to itself.
    List<Integer> ports = new ArrayList<>();
    for (int port = firstPort; ports.size() < count; port++) {
      if (port >= 32768) {
        throw new IllegalStateException("not enough free ports from " + firstPort);
      }
      try {
        vertx
            .createHttpServer()
            .requestHandler(r -> r.response().end("ok"))
            .listen(port, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
        ports.add(port);
      } catch (ExecutionException busy) {
        // taken: try the next one
      }
    }
    String joined = ports.stream().map(String::valueOf).collect(Collectors.joining("\n"));
    Path tmp = portsFile.resolveSibling(portsFile.getFileName() + ".tmp");
    Files.writeString(tmp, joined + "\n", StandardCharsets.US_ASCII);
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
