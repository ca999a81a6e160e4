package dev.replicapool.registrar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.registration.LeaseConventions;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The registrar as a library: renewals against a real kube-apiserver and etcd. */
class LeaseRegistrarIT extends RegistrarApiServerBase {
  @Test
  void createsRenewsReportsHealthRecreatesAndNeverDeletes(@TempDir Path dir) throws Exception {
    AtomicBoolean healthy = new AtomicBoolean(true);
    Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), kubeConfigYaml);
    KubernetesClient renewing = RegistrarClient.fabric8Client(Optional.of(kubeconfig), 900);
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
}
