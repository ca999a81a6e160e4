package dev.replicapool.operator;

import dev.replicapool.api.wire.TlsMaterial;
import dev.replicapool.controlplane.ControlPlaneServer;
import dev.replicapool.controlplane.SyncState;
import dev.replicapool.operator.metrics.OperatorMetrics;
import dev.replicapool.operator.probing.Prober;
import dev.replicapool.operator.push.SnapshotPublisher;
import dev.replicapool.operator.reconciler.ReplicaPoolReconciler;
import dev.replicapool.operator.status.EventRecorder;
import dev.replicapool.operator.status.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.time.Clock;
import java.time.Duration;
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
  private final AtomicBoolean started = new AtomicBoolean();

  private ReplicaPoolOperator(
      Vertx vertx,
      ControlPlaneServer controlPlane,
      Prober prober,
      Operator operator,
      OperatorMetrics metrics,
      HttpServer admin) {
    this.vertx = vertx;
    this.controlPlane = controlPlane;
    this.prober = prober;
    this.operator = operator;
    this.metrics = metrics;
    this.admin = admin;
  }

  /** Starts everything and returns once the controller runs (or waits for leadership). */
  public static ReplicaPoolOperator start(KubernetesClient client, OperatorConfig config) {
    Clock clock = Clock.systemUTC();
    Vertx vertx = Vertx.vertx();
    OperatorMetrics metrics = new OperatorMetrics();
    var options =
        new ControlPlaneServer.Options(
            config.controlPlaneHost(), config.controlPlanePort(), config.token());
    if (config.tlsCertPem() != null) {
      options = options.withTls(new TlsMaterial(config.tlsCertPem(), config.tlsKeyPem()));
    }
    ControlPlaneServer controlPlane = new ControlPlaneServer(vertx, options);
    controlPlane.start().await();
    Prober prober = new Prober(vertx);
    SnapshotPublisher publisher = new SnapshotPublisher(controlPlane);
    EventRecorder events = new EventRecorder(client, clock::millis, 10, 6_000);
    ReplicaPoolReconciler reconciler =
        new ReplicaPoolReconciler(
            clock,
            prober,
            publisher,
            pool -> toSync(controlPlane.syncState(pool)),
            events,
            metrics);

    // Without leader election this process always leads.
    AtomicBoolean leader = new AtomicBoolean(config.leaderElectionNamespace() == null);
    Operator operator =
        new Operator(
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
                        null,
                        new LeaderCallbacks(
                            () -> {
                              log.info("this replica leads");
                              leader.set(true);
                            },
                            () -> {
                              log.warn("this replica lost the lead");
                              leader.set(false);
                            },
                            newLeader -> log.info("leader is {}", newLeader)),
                        true));
              }
            });
    operator.register(
        reconciler,
        c -> {
          if (!config.namespaces().isEmpty()) {
            c.settingNamespaces(config.namespaces());
          }
        });
    // A data plane's ACK changes a pool's DataPlaneSynced condition: reconcile to show it.
    controlPlane.onSyncChange(reconciler::requestReconcile);

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
    ReplicaPoolOperator op =
        new ReplicaPoolOperator(vertx, controlPlane, prober, operator, metrics, admin);
    op.started.set(true);
    log.info(
        "operator started: control plane on {}, admin on {}",
        controlPlane.port(),
        admin.actualPort());
    return op;
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

  @Override
  public void close() {
    if (!started.getAndSet(false)) {
      return;
    }
    try {
      operator.stop();
    } catch (RuntimeException e) {
      log.warn("stopping the controller: {}", e.getMessage());
    }
    prober.close();
    controlPlane.stop().await();
    vertx.close().await();
  }
}
