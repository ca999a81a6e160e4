package dev.replicapool.operator;

import dev.replicapool.api.wire.TlsMaterial;
import dev.replicapool.controlplane.ControlPlaneServer;
import dev.replicapool.controlplane.Convergence;
import dev.replicapool.controlplane.SyncState;
import dev.replicapool.operator.metrics.OperatorMetrics;
import dev.replicapool.operator.probing.Prober;
import dev.replicapool.operator.push.InitialSync;
import dev.replicapool.operator.push.PushSpans;
import dev.replicapool.operator.push.SnapshotPublisher;
import dev.replicapool.operator.reconciler.ReplicaPoolReconciler;
import dev.replicapool.operator.status.EventRecorder;
import dev.replicapool.operator.status.StatusBuilder;
import dev.replicapool.operator.tracing.OperatorTracing;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
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
  private final LeaderElection election;
  private final ReplicaPoolReconciler reconciler;
  private final OperatorTracing tracing;
  private final AtomicBoolean started = new AtomicBoolean();

  private ReplicaPoolOperator(
      Vertx vertx,
      ControlPlaneServer controlPlane,
      Prober prober,
      Operator operator,
      OperatorMetrics metrics,
      HttpServer admin,
      LeaderElection election,
      ReplicaPoolReconciler reconciler,
      OperatorTracing tracing) {
    this.vertx = vertx;
    this.tracing = tracing;
    this.controlPlane = controlPlane;
    this.prober = prober;
    this.operator = operator;
    this.metrics = metrics;
    this.admin = admin;
    this.election = election;
    this.reconciler = reconciler;
  }

  /** Starts everything and returns once the controller runs (or waits for leadership). */
  public static ReplicaPoolOperator start(KubernetesClient client, OperatorConfig config) {
    Vertx vertx = Vertx.vertx();
    OperatorMetrics metrics = new OperatorMetrics();
    ControlPlaneServer controlPlane = startControlPlane(vertx, config);
    Prober prober = new Prober(vertx);
    OperatorTracing tracing = OperatorTracing.start(config.otlpEndpoint(), config.traceSampling());
    PushSpans pushSpans = new PushSpans(tracing.tracer());
    SnapshotPublisher publisher = new SnapshotPublisher(controlPlane, pushSpans);
    InitialSync initialSync = new InitialSync(vertx, controlPlane, publisher);
    ReplicaPoolReconciler reconciler =
        newReconciler(client, controlPlane, prober, publisher, metrics, tracing);

    LeaderElection election = new LeaderElection(client, config);
    Operator operator = newOperator(client, config, election, initialSync);
    register(operator, reconciler, config);
    // A data plane's ACK changes a pool's DataPlaneSynced condition: reconcile to show it.
    controlPlane.onSyncChange(reconciler::requestReconcile);
    // The ACK that completes a version: replicapool_push_convergence_seconds.
    controlPlane.onConvergence(c -> metrics.pushConvergence(c.pool(), c.nanos()));
    controlPlane.onConvergence(pushSpans::converged);

    HttpServer admin =
        serve(vertx, client, config, metrics, election, operator, initialSync, controlPlane);
    ReplicaPoolOperator op =
        new ReplicaPoolOperator(
            vertx, controlPlane, prober, operator, metrics, admin, election, reconciler, tracing);
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
      OperatorMetrics metrics,
      OperatorTracing tracing) {
    Clock clock = Clock.systemUTC();
    EventRecorder events = new EventRecorder(client, clock::millis, 10, 6_000);
    return new ReplicaPoolReconciler(
        clock,
        prober,
        publisher,
        pool -> toSync(controlPlane.syncState(pool), controlPlane.lastConvergence(pool)),
        events,
        metrics,
        tracing.tracer());
  }

  /** The JOSDK operator on this client, electing a leader when the config names a namespace. */
  private static Operator newOperator(
      KubernetesClient client,
      OperatorConfig config,
      LeaderElection election,
      InitialSync initialSync) {
    return new Operator(
        o -> {
          o.withKubernetesClient(client).withCloseClientOnStop(false);
          if (election.enabled()) {
            o.withLeaderElectionConfiguration(
                election.configuration(
                    () ->
                        initialSync.begin(InitialSync.existingPools(client, config.namespaces()))));
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
      LeaderElection election,
      Operator operator,
      InitialSync initialSync,
      ControlPlaneServer controlPlane) {
    AtomicBoolean running = new AtomicBoolean();
    HttpServer admin =
        AdminServer.start(
            vertx,
            config.controlPlaneHost(),
            config.adminPort(),
            metrics,
            running,
            election.leads(),
            operator,
            controlPlane::connectedDataPlanes);
    operator.start();
    running.set(true);
    if (!election.enabled()) {
      initialSync.begin(InitialSync.existingPools(client, config.namespaces()));
    }
    return admin;
  }

  private static StatusBuilder.DataPlaneSync toSync(SyncState s, Optional<Convergence> last) {
    return new StatusBuilder.DataPlaneSync(
        s.dataPlanes(),
        s.atLatestVersion(),
        s.latestVersion(),
        s.nacks(),
        last.map(Convergence::version).orElse(0L),
        last.map(c -> c.nanos() / 1e6).orElse(0.0));
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
    return election.leads().get();
  }

  /** The prober's counters: probes in flight, started, timed out, skipped. */
  public Prober.Stats proberStats() {
    return prober.stats();
  }

  /**
   * Every place a pool lives in this operator, by name ("namespace/name"): held by the reconciler,
   * probed, published to the data planes. A deleted pool is in none of them.
   */
  public record PoolTraces(Set<String> reconciled, Set<String> probed, Set<String> published) {}

  public PoolTraces poolTraces() {
    Set<String> probed = new TreeSet<>();
    prober.tracked().forEach(k -> probed.add(k.pool()));
    return new PoolTraces(reconciler.pools(), probed, controlPlane.publishedPools());
  }

  @Override
  public void close() {
    if (!started.getAndSet(false)) {
      return;
    }
    boolean wasLeader = election.closing();
    try {
      operator.stop();
    } catch (RuntimeException e) {
      log.warn("stopping the controller: {}", e.getMessage());
    }
    if (wasLeader && election.enabled()) {
      election.release();
    }
    prober.close();
    controlPlane.stop().await();
    vertx.close().await();
    tracing.close(); // exports what is queued, for at most a few seconds
  }
}
