package dev.replicapool.registrar;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The client a registrar renews through, chosen once from the kube config: the JDK's own HTTP
 * client when {@link KubeAccess} can serve the config alone (a replica is a member a fraction of a
 * second after its exec), else fabric8's ({@link #fabric8Client}), which reads every config. The
 * command line and the sample replica both register through one.
 */
public final class RegistrarClient implements AutoCloseable {
  private final Optional<KubeAccess> access;
  private final KubernetesClient fabric8;
  private final Duration timeout;

  private RegistrarClient(Optional<KubeAccess> access, KubernetesClient fabric8, Duration timeout) {
    this.access = access;
    this.fabric8 = fabric8;
    this.timeout = timeout;
  }

  /**
   * Reads {@code kubeconfig} when given, else as kubectl looks (KUBECONFIG, ~/.kube/config, the
   * Pod's service account). A call takes at most the lease ({@link #requestTimeout}): a renewal
   * later than that is worthless.
   */
  public static RegistrarClient open(Optional<Path> kubeconfig, long leaseMillis) {
    Optional<KubeAccess> access = KubeAccess.read(kubeconfig);
    return new RegistrarClient(
        access,
        access.isPresent() ? null : fabric8Client(kubeconfig, leaseMillis),
        requestTimeout(leaseMillis));
  }

  /** The namespace the kube config names (its context's, or the Pod's), if any. */
  public Optional<String> namespace() {
    return access.isPresent()
        ? access.get().namespace()
        : Optional.ofNullable(fabric8.getConfiguration().getNamespace());
  }

  /** A registrar that renews through this client. */
  public LeaseRegistrarBuilder registrar() {
    return access.isPresent()
        ? LeaseRegistrar.builder((ns, name) -> new JdkLeaseApi(access.get(), ns, name, timeout))
        : LeaseRegistrar.builder(fabric8);
  }

  /** Which client it is, for a start-up line. */
  @Override
  public String toString() {
    return access.isPresent() ? "the JDK's HTTP client" : "fabric8's client";
  }

  @Override
  public void close() {
    if (fabric8 != null) {
      fabric8.close();
    }
  }

  /** A request that takes longer than the lease is worthless: the lease, at least 1 s. */
  private static Duration requestTimeout(long leaseMillis) {
    return Duration.ofMillis(Math.max(1000, Math.min(Integer.MAX_VALUE, leaseMillis)));
  }

  /**
   * A client suited to renewing: a request that takes longer than the lease is worthless, so the
   * time-out is the lease (at least 1 s), and failed calls are not retried inside the client
   * because the next tick retries anyway. Reads {@code kubeconfig} when given, else fabric8's
   * default (KUBECONFIG, ~/.kube/config, in-cluster service account).
   */
  static KubernetesClient fabric8Client(Optional<Path> kubeconfig, long leaseMillis) {
    Config config =
        kubeconfig
            .map(path -> Config.fromKubeconfig(path.toFile()))
            .orElseGet(() -> Config.autoConfigure(null));
    int timeout = (int) requestTimeout(leaseMillis).toMillis();
    config.setRequestTimeout(timeout);
    config.setConnectionTimeout(timeout);
    config.setRequestRetryBackoffLimit(0);
    return new KubernetesClientBuilder().withConfig(config).build();
  }
}
