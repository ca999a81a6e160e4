package dev.replicapool.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the real kubectl against a kubeconfig, the way a user would. */
public final class Kubectl {
  private final Path kubeConfig;

  public Kubectl(Path kubeConfig) {
    this.kubeConfig = kubeConfig;
  }

  /** What kubectl printed and how it exited. */
  public record Result(int exitCode, String stdout, String stderr) {
    public String output() {
      return stdout + stderr;
    }
  }

  /** Runs {@code kubectl <args>} with an optional standard input. */
  public Result runWithInput(String stdin, String... args) {
    List<String> command = new ArrayList<>();
    command.add(kubectlBinary());
    command.add("--kubeconfig=" + kubeConfig);
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).start();
      if (stdin != null) {
        p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
      }
      p.getOutputStream().close();
      var out = p.getInputStream().readAllBytes();
      var err = p.getErrorStream().readAllBytes();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("kubectl " + String.join(" ", args) + " timed out");
      }
      return new Result(
          p.exitValue(),
          new String(out, StandardCharsets.UTF_8),
          new String(err, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalStateException("could not run kubectl: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public Result run(String... args) {
    return runWithInput(null, args);
  }

  private static String kubectlBinary() {
    return System.getProperty("replicapool.kubectl", "kubectl");
  }
}
