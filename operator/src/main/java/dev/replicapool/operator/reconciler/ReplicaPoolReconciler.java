package dev.replicapool.operator.reconciler;

import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;
import dev.replicapool.operator.discovery.LeaseExpiry;
import dev.replicapool.operator.discovery.LeaseTracker;
import dev.replicapool.operator.discovery.LeaseWatch;
import dev.replicapool.operator.discovery.MemberDiscovery;
import dev.replicapool.operator.metrics.OperatorMetrics;
import dev.replicapool.operator.probing.ProbeResult;
import dev.replicapool.operator.probing.Prober;
import dev.replicapool.operator.push.SnapshotPublisher;
import dev.replicapool.operator.status.EventRecorder;
import dev.replicapool.operator.status.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control loop of a ReplicaPool: discover members, keep them probed, push the weighted set to
 * the data planes, and write what was observed into status. Each phase is a class of its own:
 * {@link PoolObserver}, {@link MemberSync}, {@link SnapshotPush}, {@link PoolReport}, {@link
 * ExpiredLeaseCollector}, {@link StatusWriter}, with {@link SilentLeaseCheck} before discovery;
 * what is kept of a pool between reconciles is its {@link PoolState} in the {@link PoolRegistry}.
 *
 * <p>Two paths lead to a push. A reconcile (the spec, a Pod, a Lease, a TLS Secret or a CA
 * ConfigMap changed) resynchronizes everything. A probe result that changes a member's state or
 * weight pushes at once from the prober's thread, then asks for a reconcile to refresh status: the
 * data planes learn of a dead member within one probe, not one API round-trip later.
 */
@ControllerConfiguration(name = "replicapool", triggerReconcilerOnAllEvents = true)
public class ReplicaPoolReconciler implements Reconciler<ReplicaPool> {
  private static final Logger log = LoggerFactory.getLogger(ReplicaPoolReconciler.class);
  private final Clock clock;
  private final Function<String, StatusBuilder.DataPlaneSync> syncState;
  private final OperatorMetrics metrics;
  private final PoolInputs inputs;
  private final LeaseTracker leaseTracker;
  private final LeaseWatch leaseWatch = new LeaseWatch();
  private final SilentLeaseCheck silentLeases;
  private final PoolRegistry pools;
  private final PoolObserver observer;
  private final MemberSync members;
  private final SnapshotPush push;
  private final PoolReport report;
  private final ExpiredLeaseCollector expiredLeases;
  private final StatusWriter statusWriter = new StatusWriter();
  private final Tracer tracer;
  private final SimpleInboundEventSource<ReplicaPool> memberChanges =
      new SimpleInboundEventSource<>("member-changes");

  /** The operator's reconciler: Pods, Leases, Secrets and ConfigMaps come from informers. */
  public ReplicaPoolReconciler(
      Clock clock,
      Prober prober,
      SnapshotPublisher publisher,
      Function<String, StatusBuilder.DataPlaneSync> syncState,
      EventRecorder events,
      OperatorMetrics metrics,
      Tracer tracer) {
    this(clock, prober, publisher, syncState, events, metrics, tracer, new InformerInputs());
  }

  /**
   * @param syncState how the data planes stand for a pool ("namespace/name")
   * @param tracer each reconcile is a span (OpenTelemetry's no-op tracer when tracing is off)
   * @param inputs where the pool's Pods, Leases, Secrets and ConfigMaps are read
   */
  ReplicaPoolReconciler(
      Clock clock,
      Prober prober,
      SnapshotPublisher publisher,
      Function<String, StatusBuilder.DataPlaneSync> syncState,
      EventRecorder events,
      OperatorMetrics metrics,
      Tracer tracer,
      PoolInputs inputs) {
    this.clock = clock;
    this.tracer = tracer;
    this.syncState = syncState;
    this.metrics = metrics;
    this.inputs = inputs;
    this.leaseTracker = new LeaseTracker(clock::millis);
    LeaseExpiry leaseExpiry = new LeaseExpiry(leaseTracker, leaseWatch);
    this.silentLeases = new SilentLeaseCheck(leaseExpiry);
    this.pools = new PoolRegistry(clock);
    this.observer = new PoolObserver(inputs, new MemberDiscovery(leaseExpiry));
    this.members = new MemberSync(prober, events, metrics);
    this.push = new SnapshotPush(publisher, pools);
    this.report = new PoolReport(events, metrics);
    this.expiredLeases = new ExpiredLeaseCollector(leaseExpiry);
    prober.setListener(this::onProbeResult);
  }

  @Override
  public List<EventSource<?, ReplicaPool>> prepareEventSources(
      EventSourceContext<ReplicaPool> context) {
    List<EventSource<?, ReplicaPool>> sources =
        new ArrayList<>(inputs.eventSources(context, leaseTracker, leaseWatch, clock));
    sources.add(memberChanges);
    return sources;
  }

  @Override
  public UpdateControl<ReplicaPool> reconcile(ReplicaPool pool, Context<ReplicaPool> context) {
    long started = System.nanoTime();
    // The push a reconcile makes is this span's child (PushSpans): one trace per reconcile.
    Span span =
        tracer
            .spanBuilder("reconcile")
            .setAttribute("replicapool.pool", PoolRegistry.name(ResourceID.fromResource(pool)))
            .startSpan();
    try (Scope ignored = span.makeCurrent()) {
      if (context.isPrimaryResourceDeleted()) {
        span.setAttribute("replicapool.deleted", true);
        inputs.takeChangeSeen(ResourceID.fromResource(pool), 0);
        forget(pool);
        return UpdateControl.noUpdate();
      }
      return reconcileLive(pool, context.getClient(), started);
    } catch (RuntimeException e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR);
      throw e;
    } finally {
      span.end();
      metrics.reconcileDuration(System.nanoTime() - started);
    }
  }

  /**
   * @param started when this reconcile began ({@link System#nanoTime()}): what its snapshot's
   *     convergence is measured from, unless a Pod or Lease event that asked for it came earlier
   */
  private UpdateControl<ReplicaPool> reconcileLive(
      ReplicaPool pool, KubernetesClient client, long started) {
    long now = clock.millis();
    // Taken first: an event that arrives from here on asks for another reconcile of its own.
    long trigger = Math.min(started, inputs.takeChangeSeen(ResourceID.fromResource(pool), started));
    PoolState state =
        pools.open(ResourceID.fromResource(pool), pool.getMetadata().getUid()).orElse(null);
    if (state == null) {
      return UpdateControl.noUpdate(); // a late reconcile of a deleted pool: leave no trace
    }
    silentLeases.check(client, pool, observer.leases(pool), now);
    PoolObserver.Observed seen = observer.observe(pool, now);
    members.sync(pool, state, seen);
    long version = push.publish(pool, state, seen.pods(), client, trigger);
    Span.current().setAttribute("replicapool.snapshot.version", version);
    report.problems(pool, seen);
    expiredLeases.collect(client, pool, seen.leases(), now);
    StatusBuilder.DataPlaneSync dataPlanes = syncState.apply(state.name());
    report.rejections(pool, state, dataPlanes);
    ReplicaPoolStatus status = buildStatus(pool, state, seen, dataPlanes, version);
    report.panic(pool, state, status);
    report.memberStates(state);
    report.poolStatus(state, status);
    return statusWriter.write(pool, status, state, seen.members(), now);
  }

  private ReplicaPoolStatus buildStatus(
      ReplicaPool pool,
      PoolState state,
      PoolObserver.Observed seen,
      StatusBuilder.DataPlaneSync dataPlanes,
      long version) {
    return StatusBuilder.build(
        new StatusBuilder.Observation(
            pool,
            state.policy(),
            java.util.stream.Stream.concat(
                    state.members().stream()
                        .map(t -> new StatusBuilder.Row(t.member(), t.health().snapshot())),
                    state.leaving().stream().map(k -> new StatusBuilder.Row(k.member(), k.shown())))
                .toList(),
            seen.problems(),
            seen.unresolvedRefs(),
            seen.noMembersReason(),
            dataPlanes,
            version,
            clock.instant()));
  }

  /**
   * A reconcile threw: the status says so in a condition, and JOSDK retries. When the pool was
   * deleted meanwhile (its status write found nothing, typically), that is no failure: the pool is
   * forgotten at once and neither a status nor a retry follows ({@link PoolPresence} says why this
   * cannot wait for the delete event's reconcile).
   */
  @Override
  public ErrorStatusUpdateControl<ReplicaPool> updateErrorStatus(
      ReplicaPool pool, Context<ReplicaPool> context, Exception e) {
    if (PoolPresence.deletedDuring(pool, context.getClient())) {
      log.debug(
          "{} was deleted during its reconcile", PoolRegistry.name(ResourceID.fromResource(pool)));
      forget(pool);
      return ErrorStatusUpdateControl.<ReplicaPool>noStatusUpdate().withNoRetry();
    }
    return statusWriter.failed(pool, e, clock.instant());
  }

  /** Called on the prober's thread for every probe. */
  void onProbeResult(ProbeResult result) {
    long seen = System.nanoTime(); // what the pushed snapshot's convergence is measured from
    PoolState state = pools.find(result.pool()).orElse(null);
    if (state == null || !state.has(result.address())) {
      return;
    }
    metrics.probe(result.pool(), result.success() ? null : result.cause().label());
    var transition =
        state.onProbe(
            result.address(),
            result.success(),
            result.latencyMillis(),
            result.error(),
            result.utilization());
    // The data planes get every weight change at once; status follows state changes at once
    // (through a reconcile, off the probe thread) and drift at the periodic refresh.
    push.publish(state, seen);
    // A leaving member's hand-over ends on probes (a new member routable, the cap): the reconcile
    // removes it.
    if (transition.isPresent() || state.handOverDue()) {
      memberChanges.propagateEvent(state.id());
    }
  }

  /** Asks for a reconcile of a pool ("namespace/name"), e.g. when a data plane acknowledged it. */
  public void requestReconcile(String pool) {
    pools.find(pool).ifPresent(state -> memberChanges.propagateEvent(state.id()));
  }

  /**
   * Forgets a deleted pool for good, in this order: its state is retired first (no probe result or
   * late reconcile publishes it again), then its probes stop and the data planes are told.
   */
  private void forget(ReplicaPool pool) {
    ResourceID id = ResourceID.fromResource(pool);
    pools.retire(id, pool.getMetadata().getUid());
    String name = PoolRegistry.name(id);
    members.untrackPool(name);
    push.remove(name);
    metrics.forget(name);
  }

  /** Names ("namespace/name") of the pools this reconciler holds state for. */
  public Set<String> pools() {
    return pools.names();
  }
}
