package dev.replicapool.replica;

import dev.replicapool.registrar.CliLogging;
import dev.replicapool.registrar.LeaseRegistrar;
import dev.replicapool.registrar.RegistrarMain;
import dev.replicapool.registrar.UsageException;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Random;
import java.util.concurrent.CountDownLatch;

/**
 * {@code sample-replica --name k1 --host 127.0.0.1 --port 8081 [--register ns/pool ...]}: prints
 * "sample-replica k1 listening on 127.0.0.1:8081" (with --grpc-port, followed by " (gRPC on
 * 127.0.0.1:9091)") on stdout once it serves, and stops on SIGTERM (a Lease it renews stays and
 * expires: there is no deregistration). Exits 2 on a bad command line, 1 when it cannot listen or
 * register.
 */
public final class SampleReplicaMain {
  static {
    CliLogging.useDefaults();
  }

  private SampleReplicaMain() {}

  public static void main(String[] args) {
    ReplicaOptions options;
    try {
      options = ReplicaOptions.parse(args);
    } catch (UsageException e) {
      System.err.println("sample-replica: " + e.getMessage());
      System.err.println();
      System.err.println(ReplicaOptions.USAGE);
      System.exit(2);
      return;
    }
    if (options.help()) {
      System.out.println(ReplicaOptions.USAGE);
      return;
    }
    Random random =
        options.seed().isPresent() ? new Random(options.seed().getAsLong()) : new Random();
    SampleReplica replica;
    try {
      replica =
          SampleReplica.start(
              new SampleReplica.Options(
                  options.name(),
                  options.host(),
                  options.port(),
                  options.threads(),
                  random,
                  options.grpcPort()));
    } catch (IllegalStateException e) {
      System.err.println("sample-replica: " + e.getMessage());
      System.exit(1);
      return;
    }
    KubernetesClient client = null;
    LeaseRegistrar registrar = null;
    if (options.register().isPresent()) {
      ReplicaOptions.Registration r = options.register().get();
      try {
        client = RegistrarMain.createClient(r.kubeconfig(), r.leaseMillis());
        registrar =
            LeaseRegistrar.builder(client)
                .namespace(r.namespace())
                .pool(r.pool())
                .replica(options.name())
                .address(r.advertise().toString())
                .leaseDurationMillis(r.leaseMillis())
                .renewIntervalMillis(r.renewMillis())
                .health(replica.state()::leaseHealthy)
                .build()
                .start();
      } catch (RuntimeException e) {
        System.err.println(
            "sample-replica: cannot register in "
                + r.namespace()
                + "/"
                + r.pool()
                + ": "
                + e.getMessage());
        if (client != null) {
          client.close();
        }
        replica.close();
        System.exit(1);
        return;
      }
    }
    CountDownLatch stopped = new CountDownLatch(1);
    KubernetesClient finalClient = client;
    LeaseRegistrar finalRegistrar = registrar;
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (finalRegistrar != null) {
                    finalRegistrar.close();
                  }
                  if (finalClient != null) {
                    finalClient.close();
                  }
                  replica.close();
                  stopped.countDown();
                },
                "sample-replica-shutdown"));
    System.out.println(
        "sample-replica "
            + replica.name()
            + " listening on "
            + replica.address()
            + (replica.grpcAddress() == null ? "" : " (gRPC on " + replica.grpcAddress() + ")"));
    System.out.flush();
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
