package dev.replicapool.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A sample replica (dev.replicapool.replica.SampleReplicaMain) running as its own OS process, so
 * that a test can kill it for real (SIGKILL), freeze it (SIGSTOP) or stop it (SIGTERM).
 */
public final class ReplicaProcess implements AutoCloseable {
  private static final String MAIN = "dev.replicapool.replica.SampleReplicaMain";

  private final String name;
  private final String host;
  private final int port;
  private final Process process;

  private ReplicaProcess(String name, String host, int port, Process process) {
    this.name = name;
    this.host = host;
    this.port = port;
    this.process = process;
  }

  /** Starts a replica and returns once it listens. Extra args go to SampleReplicaMain. */
  public static ReplicaProcess start(String name, String host, int port, String... extraArgs) {
    List<String> command = command(name, host, port, extraArgs);
    Path log = logFile(name, port);
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      awaitListening(p, log, name, host, port);
      warmUp(host, port);
      return new ReplicaProcess(name, host, port, p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The java command line of a replica in this JVM's class path. */
  private static List<String> command(String name, String host, int port, String... extraArgs) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // Small, quick-starting JVMs: a test runs several of them on 2 cores.
    command.addAll(
        List.of(
            "-Xmx64m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Xshare:auto",
            "-cp",
            System.getProperty("java.class.path"),
            MAIN,
            "--name",
            name,
            "--host",
            host,
            "--port",
            Integer.toString(port)));
    command.addAll(List.of(extraArgs));
    return command;
  }

  /**
   * Copies the process's output to {@code log} and waits up to 30 s for it to say it listens; kills
   * the process if it does not.
   */
  private static void awaitListening(Process p, Path log, String name, String host, int port)
      throws InterruptedException {
    CompletableFuture<Void> ready = new CompletableFuture<>();
    Thread pump = new Thread(() -> pump(p, log, ready), "replica-" + name + "-" + port + "-output");
    pump.setDaemon(true);
    pump.start();
    try {
      ready.get(30, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      p.destroyForcibly();
      throw new IllegalStateException(
          "replica " + name + " did not start on " + host + ":" + port + "; see " + log, e);
    }
  }

  /**
   * Starts a replica that registers itself in {@code namespace/pool} with a Lease of {@code
   * leaseMillis}, renewed every {@code renewMillis}, through the API server of {@code kubeconfig}.
   */
  public static ReplicaProcess startRegistered(
      String name,
      String host,
      String namespaceAndPool,
      java.nio.file.Path kubeconfig,
      long leaseMillis,
      long renewMillis) {
    return start(
        name,
        host,
        freePort(host),
        "--register",
        namespaceAndPool,
        "--kubeconfig",
        kubeconfig.toString(),
        "--lease-ms",
        Long.toString(leaseMillis),
        "--renew-ms",
        Long.toString(renewMillis));
  }

  /**
   * A fresh JVM answers its first requests slowly (class loading, interpreter); a probe with a 100
   * ms timeout would count that as a failure. A few requests first make the replica what it is in
   * production: warm.
   */
  private static void warmUp(String host, int port) {
    var http = java.net.http.HttpClient.newHttpClient();
    var request =
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://" + host + ":" + port + "/healthz"))
            .timeout(java.time.Duration.ofSeconds(10))
            .build();
    for (int i = 0; i < 20; i++) {
      try {
        http.send(request, java.net.http.HttpResponse.BodyHandlers.discarding());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static void pump(Process p, Path log, CompletableFuture<Void> ready) {
    try (BufferedReader in =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(Files.newBufferedWriter(log))) {
      String line;
      while ((line = in.readLine()) != null) {
        out.println(line);
        out.flush();
        if (line.contains(" listening on ")) {
          ready.complete(null);
        }
      }
      ready.completeExceptionally(new IllegalStateException("replica exited before listening"));
    } catch (IOException e) {
      ready.completeExceptionally(e);
    }
  }

  private static Path logFile(String name, int port) {
    try {
      Path dir = Path.of("target", "replica-logs");
      Files.createDirectories(dir);
      return dir.resolve(name + "-" + port + ".log");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A free TCP port on the given loopback address, below the kernel's ephemeral range (32768 and up
   * on Linux). A member's port inside that range can be handed out as the local port of a
   * connection to it once the member died: the connection then reaches itself (TCP self-connect)
   * and a request sent on it waits for an answer that never comes.
   */
  public static int freePort(String host) {
    java.util.Random random = new java.util.Random();
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = 20_000 + random.nextInt(12_000);
      try (ServerSocket s = new ServerSocket()) {
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(host, port));
        return port;
      } catch (IOException inUse) {
        // try another
      }
    }
    throw new IllegalStateException("no free port between 20000 and 32000 on " + host);
  }

  public String name() {
    return name;
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  public String address() {
    return host + ":" + port;
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** SIGKILL: the replica dies without a word, as a crashed host would. */
  public void kill() {
    process.destroyForcibly();
    waitForExit();
  }

  /** SIGTERM: a graceful stop. */
  public void stop() {
    process.destroy();
    waitForExit();
  }

  /** SIGSTOP: the process hangs with its sockets open (a long GC pause, a hung host). */
  public void freeze() {
    signal("STOP");
  }

  /** SIGCONT after {@link #freeze()}. */
  public void thaw() {
    signal("CONT");
  }

  private void signal(String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void waitForExit() {
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("replica " + name + " did not exit");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      thawQuietly();
      process.destroyForcibly();
      waitForExit();
    }
  }

  private void thawQuietly() {
    try {
      signal("CONT");
    } catch (RuntimeException ignored) {
      // already running or gone
    }
  }
}
