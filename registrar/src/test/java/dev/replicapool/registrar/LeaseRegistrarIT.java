package dev.replicapool.registrar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.testing.LocalKubeApiServer;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.http.Interceptor.RequestTags;
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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Renewals against a real kube-apiserver and etcd (kube-api-test, offline binaries). */
class LeaseRegistrarIT {
  private static final AtomicInteger NAMESPACES = new AtomicInteger();
  private static String kubeConfigYaml;

  private KubernetesClient client;
  private String namespace;

  @BeforeAll
  static void startApiServer() {
    kubeConfigYaml = LocalKubeApiServer.get().kubeConfigYaml();
  }

  @BeforeEach
  void createNamespace() {
    client =
        new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeConfigYaml)).build();
    namespace = "registrar-" + ProcessHandle.current().pid() + "-" + NAMESPACES.incrementAndGet();
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
  }

  @AfterEach
  void closeClient() {
    client.close();
  }

  private Lease lease(String name) {
    return client.leases().inNamespace(namespace).withName(name).get();
  }

  private Optional<ZonedDateTime> renewTime(String name) {
    return Optional.ofNullable(lease(name)).map(l -> l.getSpec().getRenewTime());
  }

  private static String healthy(Lease lease) {
    return lease.getMetadata().getAnnotations().get(LeaseConventions.HEALTHY_ANNOTATION);
  }

  @Test
  void createsRenewsReportsHealthRecreatesAndNeverDeletes(@TempDir Path dir) throws Exception {
    AtomicBoolean healthy = new AtomicBoolean(true);
    Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), kubeConfigYaml);
    KubernetesClient renewing = RegistrarMain.createClient(Optional.of(kubeconfig), 900);
    LeaseRegistrar registrar =
        LeaseRegistrar.builder(renewing)
            .namespace(namespace)
            .pool("tracking")
            .replica("k1")
            .address("127.0.0.1:8081")
            .leaseDurationMillis(900)
            .health(healthy::get)
            .build()
            .start();
    try {
      await().atMost(Duration.ofSeconds(10)).until(() -> lease("tracking-k1") != null);
      Lease created = lease("tracking-k1");
      assertThat(created.getMetadata().getLabels())
          .containsEntry(LeaseConventions.POOL_LABEL, "tracking");
      assertThat(created.getMetadata().getAnnotations())
          .containsEntry(LeaseConventions.ADDRESS_ANNOTATION, "127.0.0.1:8081")
          .containsEntry(LeaseConventions.HEALTHY_ANNOTATION, "true");
      assertThat(created.getSpec().getHolderIdentity()).isEqualTo("k1");
      assertThat(created.getSpec().getLeaseDurationSeconds()).isEqualTo(1);
      assertThat(created.getSpec().getAcquireTime()).isNotNull();

      // renewTime moves at about 300 ms steps
      ZonedDateTime first = renewTime("tracking-k1").orElseThrow();
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> renewTime("tracking-k1").orElseThrow().isAfter(first));

      // the health flag follows the supplier within a renewal or two
      healthy.set(false);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> "false".equals(healthy(lease("tracking-k1"))));
      healthy.set(true);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> "true".equals(healthy(lease("tracking-k1"))));

      // another writer's annotation survives renewals: the merge patch does not fight it
      client
          .leases()
          .inNamespace(namespace)
          .withName("tracking-k1")
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"metadata\":{\"annotations\":{\"example.com/seen\":\"yes\"}}}");
      long renewalsBefore = registrar.successfulRenewals();
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> registrar.successfulRenewals() > renewalsBefore + 2);
      assertThat(lease("tracking-k1").getMetadata().getAnnotations())
          .containsEntry("example.com/seen", "yes")
          .containsEntry(LeaseConventions.HEALTHY_ANNOTATION, "true");
      assertThat(registrar.failedRenewals()).isZero();

      // deleted (the operator cleans up expired Leases): recreated at the next renewal
      client.leases().inNamespace(namespace).withName("tracking-k1").delete();
      await().atMost(Duration.ofSeconds(5)).until(() -> lease("tracking-k1") != null);
    } finally {
      registrar.close();
      renewing.close();
    }

    // close() leaves the Lease, and renewals stop
    Lease left = lease("tracking-k1");
    assertThat(left).isNotNull();
    ZonedDateTime last = left.getSpec().getRenewTime();
    await()
        .during(Duration.ofMillis(1000))
        .atMost(Duration.ofSeconds(3))
        .until(() -> renewTime("tracking-k1").orElseThrow().equals(last));
  }

  @Test
  void everyRenewalIsOneApiCall() {
    List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (KubernetesClient counting =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(kubeConfigYaml))
            .withHttpClientBuilderConsumer(
                builder ->
                    builder.addOrReplaceInterceptor(
                        "count",
                        new Interceptor() {
                          @Override
                          public void before(
                              BasicBuilder request, HttpRequest http, RequestTags tags) {
                            calls.add(http.method() + " " + http.uri().getPath());
                          }
                        }))
            .build()) {
      try (LeaseRegistrar registrar =
          LeaseRegistrar.builder(counting)
              .namespace(namespace)
              .pool("cheap")
              .replica("k1")
              .address("127.0.0.1:8081")
              .build()) {
        for (int i = 0; i < 5; i++) {
          assertThat(registrar.renewOnce()).isTrue();
        }
      }
      // The same replica started again while its Lease is still there.
      try (LeaseRegistrar again =
          LeaseRegistrar.builder(counting)
              .namespace(namespace)
              .pool("cheap")
              .replica("k1")
              .address("127.0.0.1:8082")
              .build()) {
        for (int i = 0; i < 2; i++) {
          assertThat(again.renewOnce()).isTrue();
        }
      }
    }
    String path = "/apis/coordination.k8s.io/v1/namespaces/" + namespace + "/leases";
    assertThat(calls)
        .containsExactly(
            "POST " + path, // a new replica: created at once
            "PATCH " + path + "/cheap-k1",
            "PATCH " + path + "/cheap-k1",
            "PATCH " + path + "/cheap-k1",
            "PATCH " + path + "/cheap-k1",
            "POST " + path, // started again: 409, there already
            "PATCH " + path + "/cheap-k1",
            "PATCH " + path + "/cheap-k1");
    assertThat(lease("cheap-k1").getMetadata().getAnnotations())
        .as("the Lease of the replica started again is its own")
        .containsEntry(LeaseConventions.ADDRESS_ANNOTATION, "127.0.0.1:8082");
  }

  /**
   * The registrar's command line as a process of its own, registering member {@code name} of pool
   * "cli" at 127.0.0.1:9 (where nothing listens), with {@code extra} flags.
   */
  ProcessBuilder registrar(Path dir, String name, String... extra) throws IOException {
    Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), kubeConfigYaml);
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                RegistrarMain.class.getName(),
                "--kubeconfig",
                kubeconfig.toString(),
                "--namespace",
                namespace,
                "--pool",
                "cli",
                "--name",
                name,
                "--address",
                "127.0.0.1:9"));
    command.addAll(List.of(extra));
    return new ProcessBuilder(command);
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
              "registrar r1 renewing Lease " + namespace + "/cli-r1 for 127.0.0.1:9 every 300 ms");

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
}
