package dev.replicapool.local;

import dev.replicapool.cli.CommandLineException;
import dev.replicapool.cli.FlagParser;
import dev.replicapool.cli.ParsedFlags;
import dev.replicapool.controlplane.ControlPlaneClient;
import dev.replicapool.dataplane.DataPlane;
import dev.replicapool.dataplane.proxy.ProxySettings;
import dev.replicapool.operator.OperatorConfig;
import dev.replicapool.operator.ReplicaPoolOperator;
import dev.replicapool.testing.ReplicaProcess;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The whole system on one machine: a local kube-apiserver (or the cluster of --kubeconfig), the
 * CRD, the operator, one data plane, sample replicas and the example pools. Ctrl-C stops all of it.
 * This class starts the processes and stops them; {@link LocalCluster} does the run's work in the
 * cluster, {@link LocalProgress} shows the steps.
 */
public final class LocalRunMain {
  static final String USAGE =
      """
      usage: scripts/run-local.sh [flags]
        --kubeconfig FILE        run against this cluster instead of a local API server
        --namespace NS           namespace of the example pools (default: default)
        --traffic-port PORT      data-plane traffic port (default 8080)
        --admin-port PORT        data-plane admin port (default 9901)
        --operator-port PORT     operator control-plane port (default 18000)
        --operator-admin PORT    operator /metrics /healthz /readyz (default 8090)
        --operator-namespaces a,b  namespaces the operator watches (default: all); the
                                 example pools' namespace should be one of them
      """;

  private static final FlagParser PARSER =
      FlagParser.of(
              List.of(
                  "kubeconfig",
                  "namespace",
                  "traffic-port",
                  "admin-port",
                  "operator-port",
                  "operator-admin",
                  "operator-namespaces"),
              List.of())
          .withHelpWords("--help", "-h")
          .withLaterRepeatWinning();

  /** Name, HTTP port, gRPC port (pool "grpc"), workers, workers a batch job holds. */
  static final List<String[]> STATIC_REPLICAS =
      List.of(
          new String[] {"k1", "18081", "18101", "8", "0"},
          new String[] {"k2", "18082", "18102", "8", "0"},
          new String[] {"k3", "18083", "18103", "8", "4"});

  /** The data-plane port of the example pool "grpc". */
  static final int GRPC_ROUTE_PORT = 18085;

  static final List<String[]> LEASE_REPLICAS =
      List.of(new String[] {"r1", "18091"}, new String[] {"r2", "18092"});

  private final List<AutoCloseable> running = new ArrayList<>();
  private final long started = System.nanoTime();
  private final LocalProgress progress = new LocalProgress();

  public static void main(String[] args) throws Exception {
    // Our own logging setup, not that of a library jar on the class path: progress goes to the
    // terminal, component logs to .local/replicapool.log.
    System.setProperty("logback.configurationFile", "replicapool-local-logback.xml");
    System.setProperty(
        "logback.statusListenerClass", "ch.qos.logback.core.status.NopStatusListener");
    Map<String, String> flags;
    LocalPorts ports;
    try {
      flags = flags(args);
      ports = LocalPorts.of(flags);
    } catch (CommandLineException | IllegalArgumentException e) {
      System.err.println("run-local: " + e.getMessage());
      System.err.print(USAGE);
      System.exit(2);
      return;
    }
    LocalRunMain run = new LocalRunMain();
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println("\nstopping everything this run started ...");
                  run.stopAll();
                  stop.countDown();
                },
                "local-run-stop"));
    try {
      run.start(flags, ports);
    } catch (Failure e) {
      System.err.println(
          "\nrun-local FAILED at step " + run.progress.step() + ": " + e.getMessage());
      System.err.println("what to do: " + e.advice);
      System.exit(1);
    }
    stop.await();
  }

  /** The flags of {@code args}; {@code --help} or {@code -h} prints the usage and exits. */
  private static Map<String, String> flags(String[] args) throws CommandLineException {
    ParsedFlags parsed = PARSER.parse(args);
    if (parsed.help()) {
      System.out.print(USAGE);
      System.exit(0);
    }
    return parsed.values();
  }

  /** A failed step: what failed, and what the user can do about it. */
  static final class Failure extends RuntimeException {
    final String advice;

    Failure(String message, String advice, Throwable cause) {
      super(message, cause);
      this.advice = advice;
    }
  }

  void start(Map<String, String> flags, LocalPorts ports) throws Exception {
    String namespace = flags.getOrDefault("namespace", "default");
    Path stateDir = Path.of(".local");
    Files.createDirectories(stateDir);
    ports.requireFree();

    LocalCluster cluster = LocalCluster.connect(flags, stateDir, progress);
    running.add(cluster.client());
    progress.done();

    cluster.installCrd();
    String token = startOperator(cluster.client(), ports, operatorNamespaces(flags), stateDir);
    startDataPlane(ports, token);
    List<ReplicaProcess> replicas = startReplicas(namespace, cluster.kubeconfig());
    List<HasMetadata> applied = cluster.applyExamplePools(namespace);
    cluster.awaitPoolsReady(namespace, applied);

    LocalRunSummary.print(
        (System.nanoTime() - started) / 1e9,
        cluster.kubeconfig(),
        namespace,
        ports.traffic(),
        ports.admin(),
        ports.operatorAdmin(),
        replicas);
  }

  /** The namespaces of --operator-namespaces, blanks dropped; none means all. */
  static Set<String> operatorNamespaces(Map<String, String> flags) {
    String value = flags.getOrDefault("operator-namespaces", "");
    return Arrays.stream(value.split(","))
        .map(String::trim)
        .filter(n -> !n.isEmpty())
        .collect(Collectors.toUnmodifiableSet());
  }

  /**
   * Starts the operator, watching {@code namespaces} (empty: all), with a fresh control-plane token
   * (written to stateDir) and returns the token.
   */
  private String startOperator(
      KubernetesClient client, LocalPorts ports, Set<String> namespaces, Path stateDir)
      throws IOException {
    progress.begin("starting the operator (control plane on 127.0.0.1:" + ports.operator() + ")");
    String token = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
    Files.writeString(stateDir.resolve("control-plane-token"), token);
    ReplicaPoolOperator operator =
        ReplicaPoolOperator.start(
            client,
            OperatorConfig.local(token)
                .withPorts(ports.operator(), ports.operatorAdmin())
                .withNamespaces(namespaces));
    running.add(0, operator);
    progress.done();
    return token;
  }

  private void startDataPlane(LocalPorts ports, String token) throws Exception {
    progress.begin("starting the data plane (traffic on 127.0.0.1:" + ports.traffic() + ")");
    Vertx vertx = Vertx.vertx();
    DataPlane dataPlane =
        DataPlane.start(
                vertx,
                new DataPlane.Config(
                    ControlPlaneClient.Options.of("127.0.0.1", ports.operator(), token, "local-dp"),
                    ProxySettings.defaults().withListen("127.0.0.1", ports.traffic(), 0),
                    "127.0.0.1",
                    ports.admin()))
            .await(30, TimeUnit.SECONDS);
    running.add(
        0,
        () -> {
          dataPlane.stop().await(10, TimeUnit.SECONDS);
          vertx.close().await();
        });
    progress.done();
  }

  private List<ReplicaProcess> startReplicas(String namespace, Path kubeconfig) throws Exception {
    progress.begin(
        "starting sample replicas k1-k3 (HTTP and gRPC; k3 half busy) and lease-registered r1-r2");
    List<ReplicaProcess> replicas = new ArrayList<>();
    for (String[] r : STATIC_REPLICAS) {
      // Each has 8 workers and reports its load; k3's batch job holds 4 of them (a noisy
      // neighbour), so the adaptive pool sends it less and its status shows it at 50 %.
      List<String> args =
          new ArrayList<>(List.of("--grpc-port", r[2], "--workers", r[3], "--busy-workers", r[4]));
      replicas.add(
          ReplicaProcess.start(
              r[0], "127.0.0.1", Integer.parseInt(r[1]), args.toArray(String[]::new)));
    }
    for (String[] r : LEASE_REPLICAS) {
      replicas.add(
          ReplicaProcess.start(
              r[0],
              "127.0.0.1",
              Integer.parseInt(r[1]),
              "--register",
              namespace + "/registry",
              "--kubeconfig",
              kubeconfig.toString()));
    }
    replicas.forEach(r -> running.add(0, r));
    progress.done();
    return replicas;
  }

  void stopAll() {
    for (AutoCloseable c : running) {
      try {
        c.close();
      } catch (Exception e) {
        System.err.println("while stopping: " + e);
      }
    }
    running.clear();
  }

  /** Files of the repository, found from the working directory upwards. */
  static Path findRepoFile(String relative) {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      Path candidate = dir.resolve(relative);
      if (Files.exists(candidate)) {
        return candidate;
      }
      dir = dir.getParent();
    }
    throw new Failure(relative + " not found", "run this from the repository's folder", null);
  }
}
