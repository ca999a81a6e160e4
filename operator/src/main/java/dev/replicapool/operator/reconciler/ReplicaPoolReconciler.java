package dev.replicapool.operator.reconciler;

import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.api.v1alpha1.MemberSource;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.api.v1alpha1.ReplicaPoolStatus;
import dev.replicapool.api.wire.TlsMaterial;
import dev.replicapool.api.wire.UpstreamTlsMaterial;
import dev.replicapool.operator.discovery.LabelSelectors;
import dev.replicapool.operator.discovery.LeaseTracker;
import dev.replicapool.operator.discovery.Member;
import dev.replicapool.operator.discovery.MemberDiscovery;
import dev.replicapool.operator.health.Transition;
import dev.replicapool.operator.metrics.OperatorMetrics;
import dev.replicapool.operator.probing.MemberKey;
import dev.replicapool.operator.probing.ProbeResult;
import dev.replicapool.operator.probing.ProbeSpec;
import dev.replicapool.operator.probing.Prober;
import dev.replicapool.operator.push.SnapshotPublisher;
import dev.replicapool.operator.readiness.RoutableGate;
import dev.replicapool.operator.status.EventRecorder;
import dev.replicapool.operator.status.PanicEvents;
import dev.replicapool.operator.status.StatusBuilder;
import dev.replicapool.operator.status.StatusDiff;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.FieldSelector;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.inbound.SimpleInboundEventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control loop of a ReplicaPool: discover members, keep them probed, push the weighted set to
 * the data planes, and write what was observed into status.
 *
 * <p>Two paths lead to a push. A reconcile (the spec, a Pod, a Lease, a TLS Secret or a CA
 * ConfigMap changed) resynchronizes everything. A probe result that changes a member's state or
 * weight pushes at once from the prober's thread, then asks for a reconcile to refresh status: the
 * data planes learn of a dead member within one probe, not one API round-trip later.
 */
@ControllerConfiguration(name = "replicapool", triggerReconcilerOnAllEvents = true)
public class ReplicaPoolReconciler implements Reconciler<ReplicaPool> {
  private static final Logger log = LoggerFactory.getLogger(ReplicaPoolReconciler.class);

  /** Status latencies and error rates drift between state changes; refresh them this often. */
  static final long STATUS_REFRESH_MILLIS = 5_000;

  /** A Lease expired this long is deleted: nobody renews it any more. */
  static final long EXPIRED_LEASE_GC_MILLIS = 60_000;

  private final Clock clock;
  private final Prober prober;
  private final SnapshotPublisher publisher;
  private final Function<String, StatusBuilder.DataPlaneSync> syncState;
  private final EventRecorder events;
  private final OperatorMetrics metrics;
  private final LeaseTracker leaseTracker;
  private final MemberDiscovery discovery;
  private final Map<String, PoolState> pools = new ConcurrentHashMap<>();
  private final Map<String, Long> lastStatusWrite = new ConcurrentHashMap<>();
  private final Map<String, String> lastRejection = new ConcurrentHashMap<>();
  private final PanicEvents panicEvents;

  private KubernetesClient client;
  private RoutableGate routableGate;
  private InformerEventSource<Pod, ReplicaPool> podSource;
  private LeaseEventSource leaseSource;
  private InformerEventSource<Secret, ReplicaPool> secretSource;
  private InformerEventSource<ConfigMap, ReplicaPool> configMapSource;
  private final SimpleInboundEventSource<ReplicaPool> memberChanges =
      new SimpleInboundEventSource<>("member-changes");

  public ReplicaPoolReconciler(
      Clock clock,
      Prober prober,
      SnapshotPublisher publisher,
      Function<String, StatusBuilder.DataPlaneSync> syncState,
      EventRecorder events,
      OperatorMetrics metrics) {
    this.clock = clock;
    this.prober = prober;
    this.publisher = publisher;
    this.syncState = syncState;
    this.events = events;
    this.metrics = metrics;
    this.panicEvents = new PanicEvents(events);
    this.leaseTracker = new LeaseTracker(clock::millis);
    this.discovery = new MemberDiscovery(leaseTracker);
    prober.setListener(this::onProbeResult);
  }

  @Override
  public List<EventSource<?, ReplicaPool>> prepareEventSources(
      EventSourceContext<ReplicaPool> context) {
    client = context.getClient();
    routableGate = new RoutableGate(client);
    podSource =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Pod.class, ReplicaPool.class)
                .withName("pods")
                .withSecondaryToPrimaryMapper(pod -> poolsSelecting(context, pod))
                .build(),
            context);
    leaseSource = new LeaseEventSource(context, leaseTracker);
    secretSource =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Secret.class, ReplicaPool.class)
                .withName("tls-secrets")
                // Only TLS Secrets: the operator has no business caching any other kind.
                .withFieldSelector(
                    new FieldSelector(new FieldSelector.Field("type", "kubernetes.io/tls")))
                .withSecondaryToPrimaryMapper(secret -> poolsUsingSecret(context, secret))
                .build(),
            context);
    // CA bundles for spec.upstreamTls.ca.configMapName (a CA certificate is public).
    configMapSource =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(ConfigMap.class, ReplicaPool.class)
                .withName("ca-configmaps")
                .withSecondaryToPrimaryMapper(cm -> poolsUsingConfigMap(context, cm))
                .build(),
            context);
    return List.of(podSource, leaseSource, secretSource, configMapSource, memberChanges);
  }

  private static Set<ResourceID> poolsSelecting(EventSourceContext<ReplicaPool> ctx, Pod pod) {
    return ctx.getPrimaryCache()
        .list(pod.getMetadata().getNamespace())
        .filter(p -> p.getSpec() != null && p.getSpec().selector != null)
        .filter(p -> LabelSelectors.matches(p.getSpec().selector, pod.getMetadata().getLabels()))
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }

  private static Set<ResourceID> poolsUsingSecret(
      EventSourceContext<ReplicaPool> ctx, Secret secret) {
    return ctx.getPrimaryCache()
        .list(secret.getMetadata().getNamespace())
        .filter(p -> p.getSpec() != null && usesSecret(p, secret.getMetadata().getName()))
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }

  private static boolean usesSecret(ReplicaPool pool, String name) {
    var spec = pool.getSpec();
    var u = spec.upstreamTls;
    return (spec.tls != null && name.equals(spec.tls.secretName))
        || (u != null && name.equals(u.clientCertificateSecretName))
        || (u != null && u.ca != null && name.equals(u.ca.secretName));
  }

  private static Set<ResourceID> poolsUsingConfigMap(
      EventSourceContext<ReplicaPool> ctx, ConfigMap cm) {
    String name = cm.getMetadata().getName();
    return ctx.getPrimaryCache()
        .list(cm.getMetadata().getNamespace())
        .filter(p -> p.getSpec() != null && p.getSpec().upstreamTls != null)
        .filter(p -> p.getSpec().upstreamTls.ca != null)
        .filter(p -> name.equals(p.getSpec().upstreamTls.ca.configMapName))
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }

  @Override
  public UpdateControl<ReplicaPool> reconcile(ReplicaPool pool, Context<ReplicaPool> context) {
    long started = System.nanoTime();
    try {
      if (context.isPrimaryResourceDeleted()) {
        forget(key(pool));
        return UpdateControl.noUpdate();
      }
      return doReconcile(pool, context);
    } finally {
      metrics.reconcileDuration(System.nanoTime() - started);
    }
  }

  private UpdateControl<ReplicaPool> doReconcile(ReplicaPool pool, Context<ReplicaPool> context) {
    String key = key(pool);
    String namespace = pool.getMetadata().getNamespace();
    long now = clock.millis();
    PoolState state = pools.computeIfAbsent(key, k -> new PoolState(k, clock));

    List<Pod> pods =
        pool.getSpec().selector == null ? List.of() : podSource.list(namespace, p -> true).toList();
    List<Lease> leases =
        pool.getSpec().registration == null
            ? List.of()
            : leaseSource
                .list(
                    namespace,
                    l ->
                        pool.getMetadata()
                            .getName()
                            .equals(l.getMetadata().getLabels().get(LeaseConventions.POOL_LABEL)))
                .toList();
    MemberDiscovery.Result found = discovery.discover(pool, pods, leases, now);

    List<String> configProblems = new ArrayList<>(found.problems());
    TlsMaterial tls = tlsMaterial(pool, configProblems);
    UpstreamTlsMaterial upstreamTls =
        UpstreamTlsSource.resolve(
            pool.getSpec(),
            name -> secretSource.get(new ResourceID(name, namespace)).orElse(null),
            name -> configMapSource.get(new ResourceID(name, namespace)).orElse(null),
            configProblems);
    ProbeSpec probeSpec = ProbeSpec.from(pool.getSpec(), upstreamTls);

    PoolState.SyncResult sync;
    boolean probeSpecChanged;
    synchronized (state) {
      state.setTls(tls);
      state.setUpstreamTls(upstreamTls);
      sync = state.sync(pool.getSpec(), found.members(), routableInStatus(pool));
      probeSpecChanged = state.setProbeSpec(probeSpec);
    }
    for (Member m : sync.removed()) {
      prober.untrack(key, m.address());
      events.normal(pool, "MemberRemoved", m.address() + " (" + m.source() + ") left the pool");
    }
    var policy = state.policy();
    // A new check (type, port, TLS material...) applies to every member, not only new ones.
    List<Member> toTrack = probeSpecChanged ? found.members() : sync.added();
    for (Member m : toTrack) {
      if (policy.activeChecks()) {
        prober.track(
            new MemberKey(key, m.address()),
            m.host(),
            m.port(),
            probeSpec,
            policy.intervalMillis(),
            policy.timeoutMillis());
      } else {
        prober.untrack(key, m.address());
      }
    }
    for (PoolState.MemberTransition mt : state.drainTransitions()) {
      Transition t = mt.transition();
      metrics.transition(key, t);
      String message = mt.address() + " " + t.from() + " -> " + t.to() + ": " + t.reason();
      if (t.to() == MemberState.Healthy) {
        events.normal(pool, "MemberHealthy", message);
      } else {
        events.warning(pool, "Member" + t.to(), message);
      }
    }
    long version =
        publisher.publish(
            key, pool.getSpec(), state.memberSnapshots(), state.tls(), state.upstreamTls());
    for (Pod pod : pods) {
      if (LabelSelectors.matches(pool.getSpec().selector, pod.getMetadata().getLabels())) {
        routableGate.sync(pod, this::anyPoolRoutesTo); // only Pods that declare the gate
      }
    }

    String noMembers = null;
    if (found.members().isEmpty() && pool.getSpec().selector != null && found.selectedPods() == 0) {
      noMembers =
          "selector " + LabelSelectors.describe(pool.getSpec().selector) + " matches no Pods";
      events.warning(pool, "SelectorMatchesNothing", noMembers);
    }
    for (String problem : configProblems) {
      events.warning(pool, "InvalidConfiguration", problem);
    }
    gcExpiredLeases(pool, leases, now);
    StatusBuilder.DataPlaneSync dataPlanes = syncState.apply(key);
    reportRejections(pool, key, dataPlanes);

    ReplicaPoolStatus status =
        StatusBuilder.build(
            new StatusBuilder.Observation(
                pool,
                policy,
                state.members().stream()
                    .map(t -> new StatusBuilder.Row(t.member(), t.health().snapshot()))
                    .toList(),
                configProblems,
                noMembers,
                dataPlanes,
                version,
                clock.instant()));
    panicEvents.observe(pool, key, status);
    metrics.members(
        key,
        state.members().stream()
            .map(t -> (OperatorMetrics.HasState) () -> t.health().state())
            .toList());

    long next = nextWakeUp(found.members(), now);
    UpdateControl<ReplicaPool> control;
    long sinceWrite = now - lastStatusWrite.getOrDefault(key, 0L);
    if (status.equals(pool.getStatus())) {
      control = UpdateControl.noUpdate();
    } else if (!StatusDiff.significant(status, pool.getStatus())
        && sinceWrite < STATUS_REFRESH_MILLIS) {
      // Only drift (weights, latencies): catch up at the next refresh, not on every probe.
      control = UpdateControl.noUpdate();
      next = Math.min(next, STATUS_REFRESH_MILLIS - sinceWrite);
    } else {
      lastStatusWrite.put(key, now);
      ReplicaPool fresh = new ReplicaPool();
      fresh.getMetadata().setName(pool.getMetadata().getName());
      fresh.getMetadata().setNamespace(namespace);
      fresh.setStatus(status);
      control = UpdateControl.patchStatus(fresh);
    }
    return control.rescheduleAfter(next);
  }

  /**
   * A data plane refused the pool's snapshot (a port it cannot bind, a certificate it cannot load):
   * the DataPlaneSynced condition says so, and one Warning Event per distinct refusal tells {@code
   * kubectl describe} readers, without an Event on every reconcile.
   */
  private void reportRejections(
      ReplicaPool pool, String key, StatusBuilder.DataPlaneSync dataPlanes) {
    if (dataPlanes == null || dataPlanes.nacks().isEmpty()) {
      lastRejection.remove(key);
      return;
    }
    String message = String.join("; ", dataPlanes.nacks());
    // The same refusal of a newer version is not news.
    String gist = message.replaceAll("version \\d+", "version");
    if (!gist.equals(lastRejection.put(key, gist))) {
      events.warning(pool, "DataPlaneRejected", message);
    }
  }

  /** Whether any pool in the Pod's namespace routes to it now (a Pod may be in several pools). */
  private boolean anyPoolRoutesTo(Pod pod) {
    String prefix = pod.getMetadata().getNamespace() + "/";
    String name = pod.getMetadata().getName();
    for (var e : pools.entrySet()) {
      if (e.getKey().startsWith(prefix)
          && e.getValue().members().stream()
              .anyMatch(
                  t ->
                      t.member().source() == MemberSource.Pod
                          && name.equals(t.member().name())
                          && t.health().snapshot().routable())) {
        return true;
      }
    }
    return false;
  }

  /** Addresses the pool's last written status shows routable (Healthy or Degraded). */
  private static Set<String> routableInStatus(ReplicaPool pool) {
    if (pool.getStatus() == null || pool.getStatus().endpoints == null) {
      return Set.of();
    }
    return pool.getStatus().endpoints.stream()
        .filter(e -> e.address != null && e.weight != null && e.weight > 0)
        .filter(e -> e.state == MemberState.Healthy || e.state == MemberState.Degraded)
        .map(e -> e.address)
        .collect(Collectors.toSet());
  }

  /** The earliest Lease expiry (so that it is acted on at once), else the status refresh. */
  private long nextWakeUp(List<Member> members, long now) {
    long next = STATUS_REFRESH_MILLIS;
    for (Member m : members) {
      if (m.leaseExpiresAtMillis() != null) {
        next = Math.min(next, Math.max(1, m.leaseExpiresAtMillis() - now + 1));
      }
    }
    return next;
  }

  /**
   * Reads the pool's TLS Secret from the informer cache; a problem, not an exception, when
   * unusable.
   */
  private TlsMaterial tlsMaterial(ReplicaPool pool, List<String> problems) {
    if (pool.getSpec().tls == null) {
      return null;
    }
    String name = pool.getSpec().tls.secretName;
    Secret secret =
        secretSource.get(new ResourceID(name, pool.getMetadata().getNamespace())).orElse(null);
    if (secret == null) {
      problems.add("TLS Secret " + name + " not found (it must be of type kubernetes.io/tls)");
      return null;
    }
    Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
    String cert = decode(data.get("tls.crt"));
    String key = decode(data.get("tls.key"));
    if (cert == null
        || key == null
        || !cert.contains("BEGIN CERTIFICATE")
        || !key.contains("PRIVATE KEY")) {
      problems.add("TLS Secret " + name + " needs PEM tls.crt and tls.key");
      return null;
    }
    return new TlsMaterial(cert, key);
  }

  private static String decode(String base64) {
    return UpstreamTlsSource.decode(base64);
  }

  /** Deletes Leases nobody renewed for a long time; a precondition keeps a fresh renewal safe. */
  private void gcExpiredLeases(ReplicaPool pool, List<Lease> leases, long now) {
    if (pool.getSpec().registration == null) {
      return;
    }
    long duration = pool.getSpec().registration.leaseDurationMillis;
    for (Lease lease : leases) {
      if (now >= leaseTracker.lastRenewalMillis(lease) + duration + EXPIRED_LEASE_GC_MILLIS) {
        try {
          client
              .leases()
              .inNamespace(lease.getMetadata().getNamespace())
              .withName(lease.getMetadata().getName())
              .lockResourceVersion(lease.getMetadata().getResourceVersion())
              .delete();
          log.info(
              "deleted expired Lease {}/{}",
              lease.getMetadata().getNamespace(),
              lease.getMetadata().getName());
        } catch (RuntimeException e) {
          log.debug(
              "could not delete expired Lease {}: {}",
              lease.getMetadata().getName(),
              e.getMessage());
        }
      }
    }
  }

  /** Called on the prober's thread for every probe. */
  void onProbeResult(ProbeResult result) {
    PoolState state = pools.get(result.pool());
    if (state == null || !state.has(result.address())) {
      return;
    }
    metrics.probe(result.pool(), result.success());
    var transition = state.onProbe(result.address(), result.success(), result.latencyMillis());
    // The data planes get every weight change at once; status follows state changes at once
    // (through a reconcile, off the probe thread) and drift at the periodic refresh.
    publisher.publish(
        result.pool(), state.spec(), state.memberSnapshots(), state.tls(), state.upstreamTls());
    if (transition.isPresent()) {
      memberChanges.propagateEvent(resourceId(result.pool()));
    }
  }

  /** Asks for a reconcile of a pool ("namespace/name"), e.g. when a data plane acknowledged it. */
  public void requestReconcile(String pool) {
    if (pools.containsKey(pool)) {
      memberChanges.propagateEvent(resourceId(pool));
    }
  }

  private void forget(String key) {
    PoolState state = pools.remove(key);
    if (state != null) {
      state.members().forEach(t -> prober.untrack(key, t.member().address()));
    }
    publisher.remove(key);
    lastStatusWrite.remove(key);
    lastRejection.remove(key);
    panicEvents.forget(key);
    metrics.forget(key);
  }

  static String key(ReplicaPool pool) {
    return pool.getMetadata().getNamespace() + "/" + pool.getMetadata().getName();
  }

  private static ResourceID resourceId(String key) {
    int slash = key.indexOf('/');
    return new ResourceID(key.substring(slash + 1), key.substring(0, slash));
  }
}
