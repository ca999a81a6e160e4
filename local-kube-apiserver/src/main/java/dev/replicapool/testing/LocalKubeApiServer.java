package dev.replicapool.testing;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One real kube-apiserver and etcd (fabric8 kube-api-test) per test JVM, started on first use and
 * stopped when the JVM exits. Test classes share it and isolate themselves by namespace: starting
 * an API server costs several seconds, a namespace costs milliseconds.
 *
 * <p>Binaries come from {@code ~/.kubeapitest/k8s/<version>-linux-amd64/}, filled by {@code
 * scripts/provision-k8s.sh}. Downloading is off unless {@code -Dreplicapool.kubeapitest.download
 * =true}, so a missing provisioning step fails with a message instead of a network time-out.
 */
public final class LocalKubeApiServer {
  private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(2);
  private static LocalKubeApiServer instance;
  private static final AtomicInteger namespaces = new AtomicInteger();

  private final KubeAPIServer server;
  private final String kubeConfigYaml;
  private final Path kubeConfigFile;

  private LocalKubeApiServer() {
    boolean download = Boolean.getBoolean("replicapool.kubeapitest.download");
    KubeAPIServerConfigBuilder config =
        KubeAPIServerConfigBuilder.anAPIServerConfig()
            .withOfflineMode(!download)
            .withUpdateKubeConfig(false);
    String version = System.getProperty("replicapool.kubeapitest.version");
    if (version != null && !version.isBlank()) {
      config.withApiServerVersion(version);
    }
    try {
      server = startBeforeOrAfterMidnight(config);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "Could not start the local kube-apiserver ("
              + e.getMessage()
              + "). Run scripts/provision-k8s.sh first: it builds the binaries offline into"
              + " ~/.kubeapitest.",
          e);
    }
    kubeConfigYaml = server.getKubeConfigYaml();
    try {
      kubeConfigFile = Files.createTempFile("replicapool-kubeconfig-", ".yaml");
      Files.writeString(kubeConfigFile, kubeConfigYaml);
      kubeConfigFile.toFile().deleteOnExit();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> stopAtExit(server), "kube-apiserver-stop"));
  }

  /**
   * Stops the server as the JVM exits. A Ctrl-C reaches etcd too (same process group), and
   * kube-api-test may have removed etcd's data folder after that exit already: no failure, though
   * it printed a stack trace on every Ctrl-C of the local run. Anything else is one line.
   */
  private static void stopAtExit(KubeAPIServer server) {
    try {
      server.stop();
    } catch (RuntimeException e) {
      if (!(e.getCause() instanceof NoSuchFileException)) {
        System.err.println("while stopping the local kube-apiserver: " + e);
      }
    }
  }

  /**
   * Starts etcd and the API server; see {@link MidnightSafeStartup} for why it may take two tries.
   */
  private static KubeAPIServer startBeforeOrAfterMidnight(KubeAPIServerConfigBuilder config) {
    while (true) {
      LocalTime now = LocalTime.now();
      Duration timeout = MidnightSafeStartup.attemptTimeout(now, STARTUP_TIMEOUT);
      if (timeout.isZero()) {
        waitFor(MidnightSafeStartup.untilAfterMidnight(now));
        continue;
      }
      KubeAPIServer server =
          new KubeAPIServer(config.withStartupTimeout((int) timeout.toMillis()).build());
      try {
        server.start();
        return server;
      } catch (RuntimeException e) {
        stopQuietly(server);
        if (timeout.equals(STARTUP_TIMEOUT)) {
          throw e;
        }
        // The attempt was cut short by midnight; the next one starts after it.
      }
    }
  }

  private static void waitFor(Duration wallClockWait) {
    // A wait for the wall clock itself, not for a condition another thread could signal.
    try {
      Thread.sleep(wallClockWait.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for midnight to pass", e);
    }
  }

  private static void stopQuietly(KubeAPIServer server) {
    try {
      server.stop();
    } catch (RuntimeException ignored) {
      // Whatever half-started is killed as far as the library can; the next attempt uses new ports.
    }
  }

  /** The shared server, started on first call. */
  public static synchronized LocalKubeApiServer get() {
    if (instance == null) {
      instance = new LocalKubeApiServer();
    }
    return instance;
  }

  /** A new client for this server; the caller closes it. */
  public KubernetesClient newClient() {
    return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeConfigYaml)).build();
  }

  /** kubeconfig file for kubectl and for processes started by tests. */
  public Path kubeConfigFile() {
    return kubeConfigFile;
  }

  public String kubeConfigYaml() {
    return kubeConfigYaml;
  }

  /**
   * Creates a fresh namespace whose name starts with the given prefix. A bare API server runs no
   * namespace controller, so namespaces are never really deleted; unique names keep tests apart.
   */
  public String createNamespace(KubernetesClient client, String prefix) {
    String name =
        (prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-")
                + "-"
                + ProcessHandle.current().pid()
                + "-"
                + namespaces.incrementAndGet())
            .replaceAll("-+", "-");
    if (name.length() > 63) {
      name = name.substring(name.length() - 63).replaceAll("^-+", "");
    }
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    return name;
  }
}
