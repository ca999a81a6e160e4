package dev.replicapool.operator.reconciler;

import dev.replicapool.api.registration.LeaseConventions;
import dev.replicapool.api.v1alpha1.ReplicaPool;
import dev.replicapool.operator.discovery.LeaseTracker;
import dev.replicapool.operator.discovery.LeaseWatch;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.health.InformerHealthIndicator;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches registration Leases (those labelled with a pool) and notes the moment each renewal is
 * seen, before JOSDK triggers the pool's reconcile: expiry is judged on the operator's clock. While
 * started it samples whether the watch is live ({@link LeaseWatch}), so that silence heard while
 * the watch was re-establishing is not taken for expiry. Its mapper tells {@code seen} the pool of
 * each Lease event as it arrives: a new, renewed or deleted Lease starts the convergence time of
 * the snapshot it leads to there.
 */
final class LeaseEventSource extends InformerEventSource<Lease, ReplicaPool> {
  private static final Logger log = LoggerFactory.getLogger(LeaseEventSource.class);

  /** Well below {@link LeaseWatch#MAX_SAMPLE_GAP_MILLIS}, so a busy machine rarely breaks a run. */
  static final long SAMPLE_MILLIS = 20;

  private final LeaseTracker tracker;
  private final LeaseWatch watch;
  private final Clock clock;
  private ScheduledExecutorService sampler;

  /** The last sample, only to log the changes (on the sampler's thread). */
  private boolean wasLive;

  LeaseEventSource(
      EventSourceContext<ReplicaPool> context,
      LeaseTracker tracker,
      LeaseWatch watch,
      Clock clock,
      UnaryOperator<Set<ResourceID>> seen) {
    super(
        InformerEventSourceConfiguration.from(Lease.class, ReplicaPool.class)
            .withName("registration-leases")
            .withLabelSelector(LeaseConventions.POOL_LABEL)
            .withSecondaryToPrimaryMapper(
                lease ->
                    seen.apply(
                        Set.of(
                            new ResourceID(
                                lease.getMetadata().getLabels().get(LeaseConventions.POOL_LABEL),
                                lease.getMetadata().getNamespace()))))
            .build(),
        context);
    this.tracker = tracker;
    this.watch = watch;
    this.clock = clock;
  }

  @Override
  public synchronized void start() {
    super.start();
    if (sampler == null) {
      sampler =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "lease-watch-sampler");
                t.setDaemon(true);
                return t;
              });
      sampler.scheduleAtFixedRate(this::sample, 0, SAMPLE_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public synchronized void stop() {
    if (sampler != null) {
      sampler.shutdownNow();
      sampler = null;
    }
    watch.sample(false, clock.millis());
    super.stop();
  }

  /** Live only when every informer (one per watched namespace) watches and has synced. */
  private void sample() {
    boolean live;
    try {
      live = !informerHealthIndicators().isEmpty();
      for (InformerHealthIndicator i : informerHealthIndicators().values()) {
        live &= i.isWatching() && i.hasSynced();
      }
    } catch (RuntimeException e) {
      // A sample that throws would end the periodic task; an unknown state is not live.
      live = false;
    }
    if (live != wasLive) {
      log.debug("Lease watch {}", live ? "live" : "down");
      wasLive = live;
    }
    watch.sample(live, clock.millis());
  }

  @Override
  public void onAdd(Lease lease) {
    tracker.observe(lease);
    watch.eventDelivered(clock.millis());
    super.onAdd(lease);
  }

  @Override
  public void onUpdate(Lease oldLease, Lease newLease) {
    tracker.observe(newLease);
    watch.eventDelivered(clock.millis());
    super.onUpdate(oldLease, newLease);
  }

  @Override
  public void onDelete(Lease lease, boolean deletedFinalStateUnknown) {
    tracker.forget(lease);
    watch.eventDelivered(clock.millis());
    super.onDelete(lease, deletedFinalStateUnknown);
  }
}
