package dev.replicapool.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.replicapool.registrar.HostPort;
import org.junit.jupiter.api.Test;

class ReplicaOptionsTest {
  @Test
  void defaults() throws Exception {
    ReplicaOptions options = ReplicaOptions.parse("--name", "k1");
    assertThat(options.name()).isEqualTo("k1");
    assertThat(options.host()).isEqualTo("127.0.0.1");
    assertThat(options.port()).isEqualTo(8080);
    assertThat(options.threads()).isEqualTo(1);
    assertThat(options.seed()).isEmpty();
    assertThat(options.register()).isEmpty();
    assertThat(options.grpcPort()).isEqualTo(-1);
  }

  @Test
  void grpcPortIsOptional() throws Exception {
    assertThat(ReplicaOptions.parse("--name", "k1", "--grpc-port", "9091").grpcPort())
        .isEqualTo(9091);
    assertThat(ReplicaOptions.parse("--name", "k1", "--grpc-port=0").grpcPort()).isZero();
    assertThatThrownBy(
            () -> ReplicaOptions.parse("--name", "k1", "--port", "9091", "--grpc-port", "9091"))
        .hasMessage("--grpc-port must differ from --port");
    assertThatThrownBy(() -> ReplicaOptions.parse("--name", "k1", "--grpc-port", "70000"))
        .hasMessageContaining("--grpc-port must be between 0 and 65535");
    assertThat(ReplicaOptions.USAGE).contains("--grpc-port PORT");
  }

  @Test
  void registrationAdvertisesTheListenerUnlessToldOtherwise() throws Exception {
    ReplicaOptions options =
        ReplicaOptions.parse(
            "--name", "k1", "--port", "8081", "--register", "shop/tracking", "--lease-ms", "1200");
    ReplicaOptions.Registration registration = options.register().orElseThrow();
    assertThat(registration.namespace()).isEqualTo("shop");
    assertThat(registration.pool()).isEqualTo("tracking");
    assertThat(registration.advertise()).isEqualTo(new HostPort("127.0.0.1", 8081));
    assertThat(registration.leaseMillis()).isEqualTo(1200);
    assertThat(registration.renewMillis()).isEqualTo(400);
    assertThat(registration.kubeconfig()).isEmpty();

    ReplicaOptions wildcard =
        ReplicaOptions.parse(
            "--name=k1",
            "--host=0.0.0.0",
            "--threads=4",
            "--seed=7",
            "--register=shop/tracking",
            "--advertise=10.0.0.7:8080");
    assertThat(wildcard.threads()).isEqualTo(4);
    assertThat(wildcard.seed()).hasValue(7);
    assertThat(wildcard.register().orElseThrow().advertise().toString()).isEqualTo("10.0.0.7:8080");
  }

  @Test
  void explainsMistakes() {
    assertThatThrownBy(() -> ReplicaOptions.parse("--port", "8081"))
        .hasMessage("--name is required");
    assertThatThrownBy(() -> ReplicaOptions.parse("--name", "k1", "--port", "80808"))
        .hasMessage("--port must be between 0 and 65535, got 80808");
    assertThatThrownBy(() -> ReplicaOptions.parse("--name", "k1", "--threads", "0"))
        .hasMessageContaining("--threads must be between 1 and");
    assertThatThrownBy(() -> ReplicaOptions.parse("--name", "k1", "--register", "tracking"))
        .hasMessage("--register must be NAMESPACE/POOL, got 'tracking'");
    assertThatThrownBy(() -> ReplicaOptions.parse("--name", "k1", "--lease-ms", "900"))
        .hasMessage("--lease-ms needs --register NAMESPACE/POOL");
    assertThatThrownBy(
            () -> ReplicaOptions.parse("--name", "k1", "--host", "0.0.0.0", "--register", "a/b"))
        .hasMessageContaining("wildcard nobody can dial");
    assertThatThrownBy(
            () -> ReplicaOptions.parse("--name", "k1", "--port", "0", "--register", "a/b"))
        .hasMessageContaining("needs --advertise");
    assertThatThrownBy(
            () ->
                ReplicaOptions.parse(
                    "--name", "k1", "--register", "a/b", "--lease-ms", "300", "--renew-ms", "300"))
        .hasMessageContaining("must be shorter than --lease-ms");
    assertThatThrownBy(() -> ReplicaOptions.parse("--name", "k1", "--verbose"))
        .hasMessage("unknown flag --verbose");
  }

  @Test
  void helpWins() throws Exception {
    assertThat(ReplicaOptions.parse("--nonsense", "-h").help()).isTrue();
    assertThat(ReplicaOptions.USAGE).contains("--register NS/POOL", "/admin/freeze?ms=N");
  }

  @Test
  void workersAndServiceMs() throws Exception {
    ReplicaOptions o = ReplicaOptions.parse("--name", "a", "--workers", "2", "--service-ms", "20");
    assertThat(o.workers()).isEqualTo(2);
    assertThat(o.serviceMillis()).isEqualTo(20);
    assertThat(ReplicaOptions.parse("--name", "a").workers()).isZero();
    assertThatThrownBy(() -> ReplicaOptions.parse("--name", "a", "--service-ms", "20"))
        .isInstanceOf(dev.replicapool.registrar.UsageException.class);
  }

  @Test
  void agentPort() throws Exception {
    assertThat(ReplicaOptions.parse("--name", "a").agentPort()).isEqualTo(-1);
    assertThat(ReplicaOptions.parse("--name", "a", "--agent-port", "0").agentPort()).isZero();
    assertThat(ReplicaOptions.parse("--name", "a", "--agent-port", "9500").agentPort())
        .isEqualTo(9500);
    assertThatThrownBy(
            () -> ReplicaOptions.parse("--name", "a", "--port", "9500", "--agent-port", "9500"))
        .hasMessageContaining("--agent-port must differ");
  }

  @Test
  void busyWorkers() throws Exception {
    assertThat(ReplicaOptions.parse("--name", "a").busyWorkers()).isZero();
    assertThat(
            ReplicaOptions.parse("--name", "a", "--workers", "8", "--busy-workers", "4")
                .busyWorkers())
        .isEqualTo(4);
    assertThatThrownBy(() -> ReplicaOptions.parse("--name", "a", "--busy-workers", "1"))
        .hasMessageContaining("--busy-workers needs --workers N");
    assertThatThrownBy(
            () -> ReplicaOptions.parse("--name", "a", "--workers", "2", "--busy-workers", "2"))
        .hasMessageContaining("--busy-workers must be fewer than --workers (2)");
  }
}
