package dev.replicapool.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.testing.LocalKubeApiServer;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sample replica as tests and the local run use it: a separate process. */
class SampleReplicaProcessIT {
  private final List<Process> processes = new ArrayList<>();
  private final HttpClient http = HttpClient.newHttpClient();
  @TempDir Path dir;

  @AfterEach
  void killProcesses() {
    processes.forEach(Process::destroyForcibly);
  }

  private static String kubeConfigYaml() {
    return LocalKubeApiServer.get().kubeConfigYaml();
  }

  private Process start(String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(SampleReplicaMain.class.getName());
    command.addAll(List.of(args));
    Process process =
        new ProcessBuilder(command)
            .redirectError(dir.resolve("stderr-" + processes.size()).toFile())
            .start();
    processes.add(process);
    return process;
  }

  private static String firstLine(Process process) throws Exception {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    return CompletableFuture.supplyAsync(
            () -> {
              try {
                return out.readLine();
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            })
        .get(30, TimeUnit.SECONDS);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private HttpResponse<String> call(String method, int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void printsItsAddressServesAndStopsOnSigterm() throws Exception {
    int port = freePort();
    Process process = start("--name", "k7", "--port", Integer.toString(port));

    assertThat(firstLine(process)).isEqualTo("sample-replica k7 listening on 127.0.0.1:" + port);
    HttpResponse<String> response = call("GET", port, "/track/1");
    assertThat(response.headers().firstValue("x-replica")).contains("k7");

    process.destroy(); // SIGTERM
    assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(Files.readString(dir.resolve("stderr-0"))).doesNotContain("\tat ", "ERROR");
  }

  @Test
  void saysWhyOnBadFlagsAndBusyPorts() throws Exception {
    Process bad = start("--name", "k1", "--port", "http");
    assertThat(bad.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(bad.exitValue()).isEqualTo(2);
    assertThat(Files.readString(dir.resolve("stderr-0")))
        .contains("sample-replica: --port must be a whole number, got 'http'")
        .contains("usage: sample-replica");

    try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      Process busy = start("--name", "k1", "--port", Integer.toString(taken.getLocalPort()));
      assertThat(busy.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(busy.exitValue()).isEqualTo(1);
      assertThat(Files.readString(dir.resolve("stderr-1")))
          .contains("sample-replica: cannot listen on 127.0.0.1:" + taken.getLocalPort());
    }
  }

  @Test
  void registersWithALeaseWhoseHealthFollowsTheReplica() throws Exception {
    String yaml = kubeConfigYaml();
    Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), yaml);
    try (KubernetesClient client =
        new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(yaml)).build()) {
      String namespace = "replica-" + ProcessHandle.current().pid();
      client
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
          .create();
      int port = freePort();
      Process process =
          start(
              "--name",
              "k1",
              "--port",
              Integer.toString(port),
              "--register",
              namespace + "/tracking",
              "--kubeconfig",
              kubeconfig.toString());
      assertThat(firstLine(process)).isEqualTo("sample-replica k1 listening on 127.0.0.1:" + port);

      var lease = client.leases().inNamespace(namespace).withName("tracking-k1");
      await().atMost(Duration.ofSeconds(10)).until(() -> lease.get() != null);
      assertThat(lease.get().getMetadata().getAnnotations())
          .containsEntry(LeaseConventions.ADDRESS_ANNOTATION, "127.0.0.1:" + port)
          .containsEntry(LeaseConventions.HEALTHY_ANNOTATION, "true");
      assertThat(lease.get().getMetadata().getLabels())
          .containsEntry(LeaseConventions.POOL_LABEL, "tracking");

      call("POST", port, "/admin/unhealthy");
      await().atMost(Duration.ofSeconds(5)).until(() -> "false".equals(healthy(lease.get())));
      call("POST", port, "/admin/healthy");
      await().atMost(Duration.ofSeconds(5)).until(() -> "true".equals(healthy(lease.get())));
      call("POST", port, "/admin/freeze?ms=3000");
      await().atMost(Duration.ofSeconds(5)).until(() -> "false".equals(healthy(lease.get())));
      await().atMost(Duration.ofSeconds(8)).until(() -> "true".equals(healthy(lease.get())));

      process.destroy();
      assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
      Lease left = lease.get();
      assertThat(left).as("no deregistration: the Lease stays").isNotNull();
      ZonedDateTime last = left.getSpec().getRenewTime();
      await()
          .during(Duration.ofMillis(900))
          .atMost(Duration.ofSeconds(3))
          .until(() -> lease.get().getSpec().getRenewTime().equals(last));
    }
  }

  private static String healthy(Lease lease) {
    return lease.getMetadata().getAnnotations().get(LeaseConventions.HEALTHY_ANNOTATION);
  }
}
