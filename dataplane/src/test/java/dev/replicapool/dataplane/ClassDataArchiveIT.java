package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's class-data archive, made as dataplane/Dockerfile makes it: its training run (the RUN
 * line, read from the Dockerfile) with the packaged jar routes every request through a data plane
 * and writes the archive as it exits; a data plane started as the image starts it (-jar, the
 * archive named) then loads its classes from the archive. {@code -Xshare:on} makes the JVM refuse
 * to start when the archive cannot be used, where the image's default would quietly go without.
 */
class ClassDataArchiveIT {
  static final Path JAR = Path.of("target", "replicapool-dataplane.jar").toAbsolutePath();
  static final Path DOCKERFILE = Path.of("Dockerfile").toAbsolutePath();

  @TempDir Path dir;

  @Test
  void theTrainingRunWritesAnArchiveTheDataPlaneStartsFrom() throws Exception {
    Path archive = dir.resolve("app.jsa");
    Run training = run(trainingCommand(archive));
    assertThat(training.exit()).as(training.output()).isZero();
    assertThat(training.output()).contains("training run: 1800 requests routed");
    assertThat(archive).isNotEmptyFile();

    Run started =
        run(
            List.of(
                "java",
                "-Xshare:on",
                "-XX:SharedArchiveFile=" + archive,
                "-Xlog:class+load=info",
                "-jar",
                JAR.toString(),
                "--help"));
    assertThat(started.exit()).as(started.output()).isZero();
    assertThat(started.output())
        .contains("dev.replicapool.dataplane.DataPlaneArgs source: shared objects file (top)")
        .contains("dev.replicapool.cli.FlagParser source: shared objects file (top)");
  }

  /** The Dockerfile's RUN line that writes the archive, its paths made this test's. */
  static List<String> trainingCommand(Path archive) throws IOException {
    String text = Files.readString(DOCKERFILE).replace("\\\n", " ");
    String run =
        text.lines()
            .filter(l -> l.startsWith("RUN java ") && l.contains("-XX:ArchiveClassesAtExit="))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no training RUN line in " + DOCKERFILE));
    List<String> words = new ArrayList<>();
    for (String w : run.substring("RUN ".length()).trim().split("\\s+")) {
      words.add(
          w.replace("/app/app.jsa", archive.toString()).replace("/app/app.jar", JAR.toString()));
    }
    return words;
  }

  record Run(int exit, String output) {}

  static Run run(List<String> command) throws Exception {
    Path log = Files.createTempFile("class-data", ".log");
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("did not end in 120 s: " + Arrays.toString(command.toArray()));
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    Files.delete(log);
    return new Run(p.exitValue(), output);
  }
}
