package dev.replicapool.e2e;

import static dev.replicapool.e2e.RenderedManifests.NAMESPACE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.testing.LocalKubeApiServer;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code OperatorMain} in a JVM of its own with the rendered Deployment's args, as the Deployment
 * runs it, except for what only exists in a Pod: the token path, the ports (free ones on loopback)
 * and the identity, which the API server impersonates from fabric8's {@code
 * kubernetes.impersonate.*} settings (no kubeconfig flag: the in-cluster path,
 * Config.autoConfigure, reads them).
 */
final class OperatorProcess implements AutoCloseable {
  final int controlPlanePort;
  final int adminPort;
  private final Process process;
  private final Path log;

  private OperatorProcess(Process process, Path log, int controlPlanePort, int adminPort) {
    this.process = process;
    this.log = log;
    this.controlPlanePort = controlPlanePort;
    this.adminPort = adminPort;
  }

  static OperatorProcess start(
      RenderedManifests m, LocalKubeApiServer apiServer, String user, String podName) {
    Container c =
        RenderedManifests.template(m.one(Deployment.class, "replicapool-operator"))
            .getSpec()
            .getContainers()
            .get(0);
    String[] args =
        RenderedManifests.expandedArgs(
            c, Map.of("metadata.namespace", NAMESPACE, "metadata.name", podName));
    int controlPlanePort = ReplicaProcess.freePort("127.0.0.1");
    int adminPort = ReplicaProcess.freePort("127.0.0.1");
    try {
      Path token = Files.createTempFile("replicapool-token-", "");
      Files.writeString(token, m.token);
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(
          List.of(
              "-Xmx256m",
              "-XX:+UseSerialGC",
              "-XX:TieredStopAtLevel=1",
              "-Dkubernetes.impersonate.username=" + user,
              "-Dkubernetes.impersonate.group=system:serviceaccounts,system:serviceaccounts:"
                  + NAMESPACE
                  + ",system:authenticated",
              "-cp",
              System.getProperty("java.class.path"),
              "dev.replicapool.operator.OperatorMain"));
      // The Deployment's args first; a later flag wins, so these replace the Pod-only values.
      command.addAll(List.of(args));
      command.addAll(
          List.of(
              "--token-file=" + token,
              "--control-plane-host=127.0.0.1",
              "--control-plane-port=" + controlPlanePort,
              "--admin-port=" + adminPort));
      Path logDir = Path.of("target", "operator-logs");
      Files.createDirectories(logDir);
      Path log = logDir.resolve(podName + ".log");
      ProcessBuilder pb =
          new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
      Map<String, String> env = pb.environment();
      env.keySet().removeIf(k -> k.startsWith("REPLICAPOOL_") || k.startsWith("KUBERNETES_"));
      env.put("KUBECONFIG", apiServer.kubeConfigFile().toString());
      // JOSDK's leader identity, as in a Pod.
      env.put("HOSTNAME", podName);
      return new OperatorProcess(pb.start(), log, controlPlanePort, adminPort);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  boolean exited() {
    return !process.isAlive();
  }

  int exitCode() {
    assertThat(process.isAlive()).isFalse();
    return process.exitValue();
  }

  String output() {
    try (InputStream in = Files.newInputStream(log)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no output: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    // SIGTERM, as the kubelet sends it. Under leader election OperatorMain does not exit on it
    // yet (JOSDK's exit-on-stop-leading calls System.exit from the shutdown hook and deadlocks),
    // so after a short grace it gets what the kubelet sends after terminationGracePeriodSeconds.
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
