package dev.replicapool.replica;

import dev.replicapool.registrar.CliLogging;
import dev.replicapool.registrar.LeaseRegistrar;
import dev.replicapool.registrar.RegistrarClient;
import dev.replicapool.registrar.UsageException;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;

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
    ReplicaOptions options = parseOrExit(args);
    if (options == null) {
      return;
    }
    if (options.help()) {
      System.out.println(ReplicaOptions.USAGE);
      return;
    }
    SampleReplica replica = startOrExit(options);
    if (replica == null) {
      return;
    }
    Registration registration = Registration.NONE;
    if (options.register().isPresent()) {
      registration = registerOrExit(options.name(), options.register().get(), replica);
      if (registration == null) {
        return;
      }
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Registration finalRegistration = registration;
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  finalRegistration.close();
                  replica.close();
                  stopped.countDown();
                },
                "sample-replica-shutdown"));
    System.out.println(
        "sample-replica "
            + replica.name()
            + " listening on "
            + replica.address()
            + (replica.grpcAddress() == null ? "" : " (gRPC on " + replica.grpcAddress() + ")")
            + (replica.agentAddress() == null
                ? ""
                : " (agent-check on " + replica.agentAddress() + ")"));
    System.out.flush();
    awaitQuietly(stopped);
  }

  /** The options, or null once it exited 2 on a bad command line. */
  private static ReplicaOptions parseOrExit(String[] args) {
    try {
      return ReplicaOptions.parse(args);
    } catch (UsageException e) {
      System.err.println("sample-replica: " + e.getMessage());
      System.err.println();
      System.err.println(ReplicaOptions.USAGE);
      System.exit(2);
      return null;
    }
  }

  /** The serving replica, or null once it exited 1 because it cannot listen. */
  private static SampleReplica startOrExit(ReplicaOptions options) {
    Random random =
        options.seed().isPresent() ? new Random(options.seed().getAsLong()) : new Random();
    try {
      SampleReplica replica =
          SampleReplica.start(
              new SampleReplica.Options(
                  options.name(),
                  options.host(),
                  options.port(),
                  options.threads(),
                  random,
                  options.grpcPort()));
      if (options.workers() > 0) {
        replica.state().capacity(options.workers(), options.serviceMillis());
        replica.state().capacity().batchJob(options.busyWorkers());
      }
      if (options.agentPort() >= 0) {
        replica.serveAgentCheck(options.agentPort());
      }
      return replica;
    } catch (IllegalStateException e) {
      System.err.println("sample-replica: " + e.getMessage());
      System.exit(1);
      return null;
    }
  }

  /**
   * The replica's Lease registration and the client it renews with (neither without --register).
   */
  private record Registration(RegistrarClient client, LeaseRegistrar registrar) {
    static final Registration NONE = new Registration(null, null);

    void close() {
      if (registrar != null) {
        registrar.close();
      }
      if (client != null) {
        client.close();
      }
    }
  }

  /** The replica's own health flag, named so that the registrar's start-up line says what it is. */
  private static BooleanSupplier leaseHealth(ReplicaState state) {
    return new BooleanSupplier() {
      @Override
      public boolean getAsBoolean() {
        return state.leaseHealthy();
      }

      @Override
      public String toString() {
        return "the replica's health flag (/admin/unhealthy, /admin/freeze)";
      }
    };
  }

  /** The running registration, or null once it stopped the replica and exited 1. */
  private static Registration registerOrExit(
      String name, ReplicaOptions.Registration r, SampleReplica replica) {
    RegistrarClient client = null;
    try {
      client = RegistrarClient.open(r.kubeconfig(), r.leaseMillis());
      LeaseRegistrar registrar =
          client
              .registrar()
              .namespace(r.namespace())
              .pool(r.pool())
              .replica(name)
              .address(r.advertise().toString())
              .leaseDurationMillis(r.leaseMillis())
              .renewIntervalMillis(r.renewMillis())
              .health(leaseHealth(replica.state()))
              .build()
              .start();
      return new Registration(client, registrar);
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
      return null;
    }
  }

  private static void awaitQuietly(CountDownLatch stopped) {
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
