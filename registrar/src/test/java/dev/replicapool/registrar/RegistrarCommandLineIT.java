package dev.replicapool.registrar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.registration.LeaseConventions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The registrar's command line, and its launcher, as processes against a real kube-apiserver. */
class RegistrarCommandLineIT extends RegistrarApiServerBase {
  /**
   * The registrar's command line as a process of its own, registering member {@code name} of pool
   * "cli" at 127.0.0.1:9 (where nothing listens), with {@code extra} flags.
   */
  ProcessBuilder registrar(Path dir, String name, String... extra) throws IOException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                RegistrarMain.class.getName()));
    command.addAll(arguments(dir, name));
    command.addAll(List.of(extra));
    return new ProcessBuilder(command);
  }

  /** The registrar's arguments for member {@code name} of pool "cli" at 127.0.0.1:9. */
  List<String> arguments(Path dir, String name) throws IOException {
    Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), kubeConfigYaml);
    return List.of(
        "--kubeconfig",
        kubeconfig.toString(),
        "--namespace",
        namespace,
        "--pool",
        "cli",
        "--name",
        name,
        "--address",
        "127.0.0.1:9");
  }

  @Test
  void commandLineRegistersWithItsHealthUrlAndLeavesTheLeaseOnSigterm(@TempDir Path dir)
      throws Exception {
    Process process =
        registrar(dir, "r1", "--health-url", "http://127.0.0.1:9/healthz")
            .redirectError(dir.resolve("stderr").toFile())
            .start();
    try {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> readLine(out));
      assertThat(ready.get(30, TimeUnit.SECONDS))
          .isEqualTo(
              "registrar r1 renewing Lease "
                  + namespace
                  + "/cli-r1 for 127.0.0.1:9 every 300 ms"
                  + " through the JDK's HTTP client");

      // nothing listens on port 9: the registrar reports unhealthy but keeps renewing
      await().atMost(Duration.ofSeconds(10)).until(() -> lease("cli-r1") != null);
      assertThat(healthy(lease("cli-r1"))).isEqualTo("false");
      ZonedDateTime first = renewTime("cli-r1").orElseThrow();
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> renewTime("cli-r1").orElseThrow().isAfter(first));

      process.destroy(); // SIGTERM
      assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(lease("cli-r1")).isNotNull();
      assertThat(Files.readString(dir.resolve("stderr")))
          .contains("reports unhealthy: connection refused")
          .contains("stopped renewing Lease")
          .doesNotContain("ERROR", "\tat ");
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void commandLineWithDrainMsDrainsOnSigtermKeepsRenewingThenDeletesTheLease(@TempDir Path dir)
      throws Exception {
    Process process =
        registrar(dir, "d1", "--drain-ms", "2000")
            .redirectError(dir.resolve("stderr").toFile())
            .redirectOutput(dir.resolve("stdout").toFile())
            .start();
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> lease("cli-d1") != null);
      assertThat(lease("cli-d1").getMetadata().getAnnotations())
          .doesNotContainKey(LeaseConventions.DRAIN_ANNOTATION);

      process.destroy(); // SIGTERM
      await()
          .atMost(Duration.ofSeconds(1))
          .pollInterval(Duration.ofMillis(20))
          .until(
              () ->
                  "true"
                      .equals(
                          lease("cli-d1")
                              .getMetadata()
                              .getAnnotations()
                              .get(LeaseConventions.DRAIN_ANNOTATION)));
      // Draining, it keeps renewing so that it does not expire while requests finish.
      ZonedDateTime drainedAt = renewTime("cli-d1").orElseThrow();
      await()
          .atMost(Duration.ofMillis(1500))
          .until(() -> renewTime("cli-d1").orElseThrow().isAfter(drainedAt));
      // Then it leaves: the Lease is deleted and the process exits.
      await().atMost(Duration.ofSeconds(5)).until(() -> lease("cli-d1") == null);
      assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(Files.readString(dir.resolve("stderr")))
          .contains("draining: Lease", "deleted Lease")
          .doesNotContain("ERROR", "\tat ");
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void commandLineExitsWithUsageOnBadFlags(@TempDir Path dir) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process process =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                RegistrarMain.class.getName(),
                "--pool",
                "p")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("out").toFile())
            .start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(Files.readString(dir.resolve("out")))
        .contains("registrar: missing required --name, --address")
        .contains("usage: registrar");
  }

  private static String readLine(BufferedReader reader) {
    try {
      return reader.readLine();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * The launcher the README runs (registrar/bin/replicapool-registrar): its first run registers
   * and, when it exits, writes the class-data archive; the next run puts that archive in place,
   * loads the registrar's classes from it, and registers the same way.
   */
  @Test
  void theLauncherRegistersAndItsNextRunLoadsTheArchiveTheFirstWrote(@TempDir Path dir)
      throws Exception {
    Path cds = dir.resolve("cds");
    for (String name : List.of("l1", "l2")) {
      List<String> command = new ArrayList<>();
      command.add(Path.of("bin", "replicapool-registrar").toAbsolutePath().toString());
      command.addAll(arguments(dir, name));
      ProcessBuilder launcher =
          new ProcessBuilder(command)
              .redirectError(dir.resolve(name + ".stderr").toFile())
              .redirectOutput(dir.resolve(name + ".stdout").toFile());
      launcher.environment().put("REPLICAPOOL_CDS_DIR", cds.toString());
      launcher
          .environment()
          .put("JAVA_TOOL_OPTIONS", "-Xlog:class+load=info:file=" + dir.resolve(name + ".classes"));
      Process process = launcher.start();
      try {
        await().atMost(Duration.ofSeconds(30)).until(() -> lease("cli-" + name) != null);
        process.destroy(); // SIGTERM: the first run writes its archive as it exits
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
      } finally {
        process.destroyForcibly();
      }
    }
    try (var files = Files.list(cds)) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .as("the first run's archive, put in place by the next")
          .singleElement()
          .asString()
          .matches("registrar-[0-9]+\\.jsa");
    }
    assertThat(Files.readString(dir.resolve("l1.classes")))
        .contains("dev.replicapool.registrar.RegistrarMain source: file:");
    assertThat(Files.readString(dir.resolve("l2.classes")))
        .contains("dev.replicapool.registrar.RegistrarMain source: shared objects file");
    assertThat(Files.readString(dir.resolve("l2.stderr"))).doesNotContain("ERROR", "\tat ");
  }
}
