package dev.replicapool.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One command on this host with a time bound, its output kept (the last 60 lines) for the assertion
 * message: the cluster scripts and the kind CLI, which say why they failed on stderr.
 */
record HostCommand(int exit, String out) {

  static HostCommand run(Path dir, int timeoutSeconds, List<String> command) {
    try {
      Path log = Files.createTempFile("host-command-", ".log");
      Process p =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return new HostCommand(-1, "timed out after " + timeoutSeconds + " s\n" + tail(log));
      }
      String out = tail(log);
      Files.delete(log);
      return new HostCommand(p.exitValue(), out);
    } catch (IOException e) {
      return new HostCommand(-1, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new HostCommand(-1, e.toString());
    }
  }

  boolean ok() {
    return exit == 0;
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
  }
}
