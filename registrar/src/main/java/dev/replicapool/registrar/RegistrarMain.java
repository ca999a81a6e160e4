package dev.replicapool.registrar;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.slf4j.LoggerFactory;

/**
 * Command-line registrar that any replica, written in any language, runs beside itself:
 *
 * <pre>
 * java -jar replicapool-registrar.jar --namespace shop --pool tracking --name k1 \
 *     --address 10.0.0.7:8080 --lease-ms 900 --health-url http://127.0.0.1:8080/healthz
 * </pre>
 *
 * Exits 2 with the usage on a bad command line, 1 when it cannot start, and stops renewing on
 * SIGTERM without deleting the Lease; with {@code --drain-ms MS} it first drains (the Lease marked
 * {@code replicapool.dev/drain}, still renewed) for MS, then deletes the Lease. The Pod's
 * terminationGracePeriodSeconds must cover MS.
 */
public final class RegistrarMain {
  static {
    CliLogging.useDefaults();
  }

  private RegistrarMain() {}

  public static void main(String[] args) {
    // Logging starts (logback reads its configuration) on a thread of its own while this one
    // reads the kube config and sets up TLS: the two cost about the same, and a replica is a
    // member only after both.
    Thread logging = new Thread(LoggerFactory::getILoggerFactory, "registrar-logging");
    logging.setDaemon(true);
    logging.start();
    RegistrarOptions options;
    try {
      options = RegistrarOptions.parse(args);
    } catch (UsageException e) {
      System.err.println("registrar: " + e.getMessage());
      System.err.println();
      System.err.println(RegistrarOptions.USAGE);
      System.exit(2);
      return;
    }
    if (options.help()) {
      System.out.println(RegistrarOptions.USAGE);
      return;
    }
    options.warnings().forEach(w -> System.err.println("registrar: warning: " + w));
    try {
      run(options, System.out);
    } catch (RuntimeException e) {
      System.err.println("registrar: " + e.getMessage());
      System.exit(1);
    }
  }

  private static void run(RegistrarOptions options, PrintStream out) {
    RegistrarClient client = RegistrarClient.open(options.kubeconfig(), options.leaseMillis());
    String namespace =
        options
            .namespace()
            .or(client::namespace)
            .orElseThrow(
                () -> {
                  client.close();
                  return new IllegalStateException(
                      "no --namespace given and the kube config names none");
                });
    LeaseRegistrar registrar = newRegistrar(options, client.registrar(), namespace);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stop(registrar, options.drainMillis());
                  client.close();
                  stopped.countDown();
                },
                "registrar-shutdown"));
    registrar.start();
    out.printf(
        "registrar %s renewing Lease %s/%s for %s every %d ms through %s%n",
        options.name(),
        namespace,
        registrar.lease().leaseName(),
        options.address(),
        registrar.renewIntervalMillis(),
        client);
    out.flush();
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops renewing; with a drain time, drains for that long first and then deletes the Lease. */
  static void stop(LeaseRegistrar registrar, long drainMillis) {
    if (drainMillis <= 0) {
      registrar.close();
      return;
    }
    registrar.drain();
    try {
      Thread.sleep(drainMillis); // renewals go on, carrying the drain
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    registrar.leave();
  }

  private static LeaseRegistrar newRegistrar(
      RegistrarOptions options, LeaseRegistrarBuilder builder, String namespace) {
    builder
        .namespace(namespace)
        .pool(options.pool())
        .replica(options.name())
        .address(options.address().toString())
        .leaseDurationMillis(options.leaseMillis())
        .renewIntervalMillis(options.renewMillis());
    options
        .healthUrl()
        .ifPresent(
            url ->
                builder.healthUrl(
                    url, options.healthTimeoutMillis().map(Duration::ofMillis).orElse(null)));
    return builder.build();
  }
}
