package dev.replicapool.operator;

import dev.replicapool.api.wire.TlsMaterial;
import dev.replicapool.controlplane.ControlPlaneServer;
import dev.replicapool.controlplane.SyncState;
import dev.replicapool.operator.metrics.OperatorMetrics;
import dev.replicapool.operator.probing.Prober;
import dev.replicapool.operator.push.InitialSync;
import dev.replicapool.operator.push.SnapshotPublisher;
import dev.replicapool.operator.reconciler.ReplicaPoolReconciler;
import dev.replicapool.operator.status.EventRecorder;
import dev.replicapool.operator.status.StatusBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One operator process: the JOSDK controller, the prober, the control-plane server the data planes
 * dial, and the admin port. Used by {@link OperatorMain}, the local run and the tests alike.
 */
public final class ReplicaPoolOperator implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReplicaPoolOperator.class);

  private final Vertx vertx;
  private final ControlPlaneServer controlPlane;
  private final Prober prober;
  private final Operator operator;
  private final OperatorMetrics metrics;
  private final HttpServer admin;
  private final AtomicBoolean leader;
  private final AtomicBoolean closing;
  private final KubernetesClient client;
  private final String leaseNamespace;
  private final String identity;
  private final AtomicBoolean started = new AtomicBoolean();

  private ReplicaPoolOperator(
      Vertx vertx,
      ControlPlaneServer controlPlane,
      Prober prober,
      Operator operator,
      OperatorMetrics metrics,
      HttpServer admin,
      AtomicBoolean leader,
      AtomicBoolean closing,
      KubernetesClient client,
      String leaseNamespace,
      String identity) {
    this.vertx = vertx;
    this.controlPlane = controlPlane;
    this.prober = prober;
    this.operator = operator;
    this.metrics = metrics;
    this.admin = admin;
    this.leader = leader;
    this.closing = closing;
    this.client = client;
    this.leaseNamespace = leaseNamespace;
    this.identity = identity;
  }

  /** Starts everything and returns once the controller runs (or waits for leadership). */
  public static ReplicaPoolOperator start(KubernetesClient client, OperatorConfig config) {
    Vertx vertx = Vertx.vertx();
    OperatorMetrics metrics = new OperatorMetrics();
    ControlPlaneServer controlPlane = startControlPlane(vertx, config);
    Prober prober = new Prober(vertx);
    SnapshotPublisher publisher = new SnapshotPublisher(controlPlane);
    InitialSync initialSync = new InitialSync(vertx, controlPlane, publisher);
    ReplicaPoolReconciler reconciler =
        newReconciler(client, controlPlane, prober, publisher, metrics);

    // Without leader election this process always leads.
    AtomicBoolean leader = new AtomicBoolean(config.leaderElectionNamespace() == null);
    AtomicBoolean closing = new AtomicBoolean();
    String identity = leaderIdentity(config);
    Operator operator = newOperator(client, config, identity, leader, closing, initialSync);
    register(operator, reconciler, config);
    // A data plane's ACK changes a pool's DataPlaneSynced condition: reconcile to show it.
    controlPlane.onSyncChange(reconciler::requestReconcile);

    HttpServer admin = serve(vertx, client, config, metrics, leader, operator, initialSync);
    ReplicaPoolOperator op =
        new ReplicaPoolOperator(
            vertx,
            controlPlane,
            prober,
            operator,
            metrics,
            admin,
            leader,
            closing,
            client,
            config.leaderElectionNamespace(),
            identity);
    op.started.set(true);
    log.info(
        "operator started: control plane on {}, admin on {}",
        controlPlane.port(),
        admin.actualPort());
    return op;
  }

  private static ControlPlaneServer startControlPlane(Vertx vertx, OperatorConfig config) {
    var options =
        new ControlPlaneServer.Options(
            config.controlPlaneHost(), config.controlPlanePort(), config.token());
    if (config.tlsCertPem() != null) {
      options = options.withTls(new TlsMaterial(config.tlsCertPem(), config.tlsKeyPem()));
    }
    if (config.clientCaPem() != null) {
      options = options.withClientCa(config.clientCaPem());
    }
    options = options.withGroupTokens(config.groupTokens());
    ControlPlaneServer controlPlane = new ControlPlaneServer(vertx, options);
    controlPlane.start().await();
    return controlPlane;
  }

  private static ReplicaPoolReconciler newReconciler(
      KubernetesClient client,
      ControlPlaneServer controlPlane,
      Prober prober,
      SnapshotPublisher publisher,
      OperatorMetrics metrics) {
    Clock clock = Clock.systemUTC();
    EventRecorder events = new EventRecorder(client, clock::millis, 10, 6_000);
    return new ReplicaPoolReconciler(
        clock, prober, publisher, pool -> toSync(controlPlane.syncState(pool)), events, metrics);
  }

  /** JOSDK's default identity, made explicit so that close() can release the Lease it holds. */
  private static String leaderIdentity(OperatorConfig config) {
    return config.leaderIdentity() != null
        ? config.leaderIdentity()
        : System.getenv("HOSTNAME") != null && !System.getenv("HOSTNAME").isBlank()
            ? System.getenv("HOSTNAME")
            : UUID.randomUUID().toString();
  }

  private static LeaderCallbacks leaderCallbacks(
      KubernetesClient client,
      OperatorConfig config,
      AtomicBoolean leader,
      AtomicBoolean closing,
      InitialSync initialSync) {
    return new LeaderCallbacks(
        () -> {
          log.info("this replica leads");
          leader.set(true);
          initialSync.begin(InitialSync.existingPools(client, config.namespaces()));
        },
        () -> onLostLead(leader, closing, config.exitOnLostLead()),
        newLeader -> log.info("leader is {}", newLeader));
  }

  /** The JOSDK operator on this client, electing a leader when the config names a namespace. */
  private static Operator newOperator(
      KubernetesClient client,
      OperatorConfig config,
      String identity,
      AtomicBoolean leader,
      AtomicBoolean closing,
      InitialSync initialSync) {
    return new Operator(
        o -> {
          o.withKubernetesClient(client).withCloseClientOnStop(false);
          if (config.leaderElectionNamespace() != null) {
            o.withLeaderElectionConfiguration(
                new LeaderElectionConfiguration(
                    OperatorConfig.LEADER_LEASE_NAME,
                    config.leaderElectionNamespace(),
                    Duration.ofSeconds(15),
                    Duration.ofSeconds(10),
                    Duration.ofSeconds(2),
                    identity,
                    leaderCallbacks(client, config, leader, closing, initialSync),
                    // Not JOSDK's exit: it would also fire on close(), where the lead is released
                    // on purpose, and System.exit from a shutdown hook (SIGTERM) blocks for ever.
                    // onLostLead exits only when the lead is lost while running.
                    false));
          }
        });
  }

  private static void register(
      Operator operator, ReplicaPoolReconciler reconciler, OperatorConfig config) {
    operator.register(
        reconciler,
        c -> {
          if (!config.namespaces().isEmpty()) {
            c.settingNamespaces(config.namespaces());
          }
        });
  }

  /**
   * Opens the admin port, starts the controller and, without leader election, the initial sync of
   * the existing pools; returns the admin server.
   */
  private static HttpServer serve(
      Vertx vertx,
      KubernetesClient client,
      OperatorConfig config,
      OperatorMetrics metrics,
      AtomicBoolean leader,
      Operator operator,
      InitialSync initialSync) {
    AtomicBoolean running = new AtomicBoolean();
    HttpServer admin =
        AdminServer.start(
            vertx,
            config.controlPlaneHost(),
            config.adminPort(),
            metrics,
            running,
            leader,
            operator);
    operator.start();
    running.set(true);
    if (config.leaderElectionNamespace() == null) {
      initialSync.begin(InitialSync.existingPools(client, config.namespaces()));
    }
    return admin;
  }

  /**
   * The lead was lost. On {@link #close} (the lead released on purpose) nothing more happens; while
   * running, another replica may already reconcile, so the process ends (as JOSDK's own
   * exit-on-stop-leading does) unless configured otherwise. The exit runs on a thread of its own:
   * this callback holds the leader elector's monitor, which the shutdown hooks need.
   */
  private static void onLostLead(AtomicBoolean leader, AtomicBoolean closing, boolean exit) {
    leader.set(false);
    if (closing.get()) {
      log.info("this replica released the lead");
      return;
    }
    if (exit) {
      log.error("this replica lost the lead while running: exiting");
      Thread t = new Thread(() -> System.exit(1), "operator-lost-lead-exit");
      t.setDaemon(false);
      t.start();
    } else {
      log.warn("this replica lost the lead");
    }
  }

  /**
   * Hands the leader Lease back once this replica stopped reconciling, as client-go's
   * ReleaseOnCancel does (JOSDK 5.2 leaves it to expire): the follower then takes over at its next
   * retry (2 s) instead of after the lease duration (15 s). Only if this replica still holds it;
   * the resourceVersion guards against a concurrent change.
   */
  private void releaseLease() {
    try {
      Lease lease =
          client
              .leases()
              .inNamespace(leaseNamespace)
              .withName(OperatorConfig.LEADER_LEASE_NAME)
              .get();
      if (lease == null
          || lease.getSpec() == null
          || !identity.equals(lease.getSpec().getHolderIdentity())) {
        return;
      }
      ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
      lease.getSpec().setHolderIdentity(null);
      lease.getSpec().setLeaseDurationSeconds(1);
      lease.getSpec().setAcquireTime(now);
      lease.getSpec().setRenewTime(now);
      client.leases().inNamespace(leaseNamespace).resource(lease).update();
      log.info("released the leader Lease {}/{}", leaseNamespace, lease.getMetadata().getName());
    } catch (RuntimeException e) {
      log.warn("could not release the leader Lease: {}", e.getMessage());
    }
  }

  private static StatusBuilder.DataPlaneSync toSync(SyncState s) {
    return new StatusBuilder.DataPlaneSync(
        s.dataPlanes(), s.atLatestVersion(), s.latestVersion(), s.nacks());
  }

  public int controlPlanePort() {
    return controlPlane.port();
  }

  public int adminPort() {
    return admin.actualPort();
  }

  public OperatorMetrics metrics() {
    return metrics;
  }

  /** Whether this replica leads (always, without leader election). */
  public boolean isLeader() {
    return leader.get();
  }

  /** The prober's counters: probes in flight, started, timed out, skipped. */
  public Prober.Stats proberStats() {
    return prober.stats();
  }

  @Override
  public void close() {
    if (!started.getAndSet(false)) {
      return;
    }
    closing.set(true);
    boolean wasLeader = leader.get();
    try {
      operator.stop();
    } catch (RuntimeException e) {
      log.warn("stopping the controller: {}", e.getMessage());
    }
    if (wasLeader && leaseNamespace != null) {
      releaseLease();
    }
    prober.close();
    controlPlane.stop().await();
    vertx.close().await();
  }
}
