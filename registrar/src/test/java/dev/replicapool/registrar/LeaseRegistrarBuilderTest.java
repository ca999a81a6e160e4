package dev.replicapool.registrar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.net.ServerSocket;
import java.net.URI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The registrar's settings and its behaviour without a reachable API server (the client points at a
 * closed port). Renewals against a real API server are tested in {@code LeaseRegistrarIT}.
 */
class LeaseRegistrarBuilderTest {
  private final KubernetesClient client = unreachableClient();

  @AfterEach
  void closeClient() {
    client.close();
  }

  private static KubernetesClient unreachableClient() {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl("http://127.0.0.1:" + port)
            .withRequestTimeout(1000)
            .withConnectionTimeout(1000)
            .withRequestRetryBackoffLimit(0)
            .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  private LeaseRegistrarBuilder valid() {
    return LeaseRegistrar.builder(client)
        .namespace("shop")
        .pool("tracking")
        .replica("k1")
        .address("127.0.0.1:8081");
  }

  @Test
  void renewsEveryThirdOfTheLeaseByDefault() {
    try (LeaseRegistrar registrar = valid().leaseDurationMillis(1500).build()) {
      assertThat(registrar.renewIntervalMillis()).isEqualTo(500);
      assertThat(registrar.lease().leaseName()).isEqualTo("tracking-k1");
      assertThat(registrar.lease().leaseDurationMillis()).isEqualTo(1500);
    }
    try (LeaseRegistrar registrar = valid().build()) {
      assertThat(registrar.renewIntervalMillis()).isEqualTo(300);
    }
  }

  @Test
  void rejectsRenewalsNotShorterThanTheLease() {
    assertThatThrownBy(() -> valid().leaseDurationMillis(900).renewIntervalMillis(900).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be shorter than the lease");
    assertThatThrownBy(() -> valid().renewIntervalMillis(0).build())
        .hasMessageContaining("at least 1 ms");
  }

  @Test
  void rejectsMissingIdentity() {
    assertThatThrownBy(() -> LeaseRegistrar.builder(client).pool("p").address("h:1").build())
        .hasMessageContaining("namespace must not be empty");
    assertThatThrownBy(() -> valid().address("nope").build()).hasMessageContaining("host:port");
  }

  @Test
  void failedRenewalsAreCountedAndRetriedNotThrown() {
    try (LeaseRegistrar registrar = valid().leaseDurationMillis(300).build()) {
      assertThat(registrar.renewOnce()).isFalse();
      assertThat(registrar.failedRenewals()).isEqualTo(1);
      assertThat(registrar.successfulRenewals()).isZero();
      assertThat(registrar.lastRenewal()).isEmpty();

      registrar.start();
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(10))
          .until(() -> registrar.failedRenewals() >= 3);
      assertThat(registrar.isClosed()).isFalse();
    }
  }

  @Test
  void aThrowingHealthSupplierDoesNotStopRenewals() {
    try (LeaseRegistrar registrar =
        valid()
            .health(
                () -> {
                  throw new IllegalStateException("boom");
                })
            .build()) {
      assertThat(registrar.renewOnce()).isFalse();
      assertThat(registrar.failedRenewals()).isEqualTo(1);
    }
  }

  @Test
  void closeIsIdempotentAndForbidsRestart() {
    LeaseRegistrar registrar = valid().healthUrl(URI.create("http://127.0.0.1:1/healthz")).build();
    registrar.close();
    registrar.close();
    assertThat(registrar.isClosed()).isTrue();
    assertThatThrownBy(registrar::start).isInstanceOf(IllegalStateException.class);
  }
}
