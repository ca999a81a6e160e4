package dev.replicapool.registrar;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers one replica in a ReplicaPool by creating and renewing a {@code coordination.k8s.io/v1}
 * Lease (see {@link MemberLease} and {@code LeaseConventions}).
 *
 * <p>Each renewal evaluates the health supplier, then sends one JSON merge patch that sets
 * renewTime and the health flag: one API call, no read before write, no resourceVersion to conflict
 * on. When the Lease is gone (404: first start, or the operator cleaned it up after it expired) it
 * is created again; the API calls are {@link LeaseWriter}'s. A failed renewal is logged and retried
 * at the next tick; nothing here throws after {@link #start()}.
 *
 * <p>{@link #close()} stops renewing and leaves the Lease in place, so a replica that stops and one
 * that crashes look the same: the member expires after the pool's lease duration. A replica that
 * wants its requests to finish first calls {@link #drain()}, waits, then {@link #leave()}s
 * (RegistrarMain's {@code --drain-ms} on SIGTERM).
 *
 * <p>Ticks are spaced by the renew interval from the start of one to the start of the next; a
 * renewal that takes longer than the interval delays the next one instead of piling calls up. The
 * caller's client should fail fast: a request time-out near the lease duration and no internal
 * retries ({@link RegistrarClient} makes one that way).
 */
public final class LeaseRegistrar implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaseRegistrar.class);

  private final MemberLease lease;
  private final long renewIntervalMillis;
  private final BooleanSupplier health;
  private final Clock clock;
  private final ScheduledExecutorService executor;
  private final LeaseWriter writer;

  private final Object renewLock = new Object();
  private final AtomicLong renewals = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicReference<Instant> lastRenewal = new AtomicReference<>();
  private volatile Boolean lastHealthy;
  private volatile boolean started;
  private volatile boolean closed;
  private volatile boolean draining;
  private String lastFailure;
  private boolean healthSupplierFailing;

  LeaseRegistrar(
      LeaseApi api,
      MemberLease lease,
      long renewIntervalMillis,
      BooleanSupplier health,
      Clock clock) {
    this.lease = lease;
    this.renewIntervalMillis = renewIntervalMillis;
    this.health = health;
    this.clock = clock;
    this.writer = new LeaseWriter(api, lease);
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "lease-registrar-" + lease.leaseName());
              t.setDaemon(true);
              return t;
            });
  }

  /** A registrar whose calls go through {@code client}, which the caller keeps and closes. */
  public static LeaseRegistrarBuilder builder(KubernetesClient client) {
    return new LeaseRegistrarBuilder(
        (namespace, name) -> new Fabric8LeaseApi(client, namespace, name));
  }

  /** A registrar whose calls go through the API {@code apis} makes for a namespace and name. */
  static LeaseRegistrarBuilder builder(BiFunction<String, String, LeaseApi> apis) {
    return new LeaseRegistrarBuilder(apis);
  }

  /** Starts renewing: the first renewal runs at once, in the background. Idempotent. */
  public synchronized LeaseRegistrar start() {
    if (closed) {
      throw new IllegalStateException("registrar for " + lease.leaseName() + " is closed");
    }
    if (!started) {
      started = true;
      log.info(
          "registering {} at {} in pool {}/{}: Lease {} renewed every {} ms, lease {} ms, health {}",
          lease.replica(),
          lease.address(),
          lease.namespace(),
          lease.pool(),
          lease.leaseName(),
          renewIntervalMillis,
          lease.leaseDurationMillis(),
          health);
      schedule(0);
    }
    return this;
  }

  /**
   * One renewal, now, on the calling thread: evaluates health, patches the Lease, creates it on
   * 404. Returns whether the API server took it. Never throws.
   */
  public boolean renewOnce() {
    synchronized (renewLock) {
      boolean healthy = evaluateHealth();
      Instant now = clock.instant();
      try {
        writer.write(healthy, draining, now);
      } catch (RuntimeException e) {
        failures.incrementAndGet();
        String problem = LeaseWriter.describe(e);
        if (!problem.equals(lastFailure)) {
          log.warn(
              "renewing Lease {}/{} failed, retrying every {} ms: {}",
              lease.namespace(),
              lease.leaseName(),
              renewIntervalMillis,
              problem);
        } else {
          log.debug("renewing Lease {} failed again: {}", lease.leaseName(), problem);
        }
        lastFailure = problem;
        return false;
      }
      if (lastFailure != null) {
        log.info("renewing Lease {}/{} works again", lease.namespace(), lease.leaseName());
        lastFailure = null;
      }
      Boolean previous = lastHealthy;
      if (previous == null || previous != healthy) {
        log.info("Lease {} reports {}", lease.leaseName(), healthy ? "healthy" : "unhealthy");
      }
      lastHealthy = healthy;
      lastRenewal.set(now);
      renewals.incrementAndGet();
      return true;
    }
  }

  private boolean evaluateHealth() {
    try {
      boolean healthy = health.getAsBoolean();
      healthSupplierFailing = false;
      return healthy;
    } catch (RuntimeException e) {
      if (!healthSupplierFailing) {
        log.warn("health supplier failed, reporting unhealthy: {}", LeaseWriter.describe(e));
      }
      healthSupplierFailing = true;
      return false;
    }
  }

  private void tick() {
    if (closed) {
      return;
    }
    long startNanos = System.nanoTime();
    try {
      renewOnce();
    } catch (Throwable t) { // renewOnce does not throw; an Error here must not end the loop quietly
      log.error("unexpected error while renewing Lease {}", lease.leaseName(), t);
    }
    long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    schedule(Math.max(0, renewIntervalMillis - elapsedMillis));
  }

  private void schedule(long delayMillis) {
    if (closed) {
      return;
    }
    try {
      executor.schedule(this::tick, delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /**
   * Drains the member: from now on every renewal marks the Lease with the drain annotation, so the
   * operator sends it no new requests while those in flight finish; it keeps renewing, so that it
   * does not expire meanwhile. Renews once now, on the calling thread; returns whether the API
   * server took it. There is no way back: a drain is the start of a stop ({@link #leave}).
   */
  public boolean drain() {
    draining = true;
    log.info("draining: Lease {}/{} marked drained", lease.namespace(), lease.leaseName());
    return renewOnce();
  }

  public boolean isDraining() {
    return draining;
  }

  /**
   * Stops renewing and deletes the Lease: after a {@link #drain} the member has no requests left
   * and can leave at once rather than at its expiry. Never throws; a failed delete leaves the Lease
   * to expire.
   */
  public void leave() {
    close();
    try {
      writer.delete();
      log.info("deleted Lease {}/{}", lease.namespace(), lease.leaseName());
    } catch (RuntimeException e) {
      log.warn(
          "deleting Lease {}/{} failed, it expires on its own: {}",
          lease.namespace(),
          lease.leaseName(),
          LeaseWriter.describe(e));
    }
  }

  /** Stops renewing. The Lease stays and expires: there is no deregistration. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    executor.shutdown();
    try {
      if (!executor.awaitTermination(1, TimeUnit.SECONDS)) {
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      executor.shutdownNow();
      Thread.currentThread().interrupt();
    }
    log.info(
        "stopped renewing Lease {}/{}; it expires on its own",
        lease.namespace(),
        lease.leaseName());
  }

  public MemberLease lease() {
    return lease;
  }

  public long renewIntervalMillis() {
    return renewIntervalMillis;
  }

  /** When the last renewal the API server accepted was sent, if any. */
  public Optional<Instant> lastRenewal() {
    return Optional.ofNullable(lastRenewal.get());
  }

  /** The health flag carried by the last accepted renewal, if any. */
  public Optional<Boolean> lastReportedHealthy() {
    return Optional.ofNullable(lastHealthy);
  }

  public long successfulRenewals() {
    return renewals.get();
  }

  public long failedRenewals() {
    return failures.get();
  }

  public boolean isClosed() {
    return closed;
  }
}
