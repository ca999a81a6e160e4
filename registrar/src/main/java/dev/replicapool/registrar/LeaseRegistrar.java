package dev.replicapool.registrar;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
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
 * is created again. A failed renewal is logged and retried at the next tick; nothing here throws
 * after {@link #start()}.
 *
 * <p>There is no deregistration: {@link #close()} stops renewing and leaves the Lease in place, so
 * a replica that stops and one that crashes look the same: the member expires after the pool's
 * lease duration.
 *
 * <p>Ticks are spaced by the renew interval from the start of one to the start of the next; a
 * renewal that takes longer than the interval delays the next one instead of piling calls up. The
 * caller's client should fail fast: a request time-out near the lease duration and no internal
 * retries ({@link RegistrarMain#createClient} configures one that way).
 */
public final class LeaseRegistrar implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaseRegistrar.class);

  private final KubernetesClient client;
  private final MemberLease lease;
  private final long renewIntervalMillis;
  private final BooleanSupplier health;
  private final Clock clock;
  private final ScheduledExecutorService executor;
  private final Lease target;

  private final Object renewLock = new Object();
  private final AtomicLong renewals = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final AtomicReference<Instant> lastRenewal = new AtomicReference<>();
  private volatile Boolean lastHealthy;
  private volatile boolean started;
  private volatile boolean closed;
  private String lastFailure;
  private boolean healthSupplierFailing;

  private LeaseRegistrar(
      KubernetesClient client,
      MemberLease lease,
      long renewIntervalMillis,
      BooleanSupplier health,
      Clock clock) {
    this.client = client;
    this.lease = lease;
    this.renewIntervalMillis = renewIntervalMillis;
    this.health = health;
    this.clock = clock;
    this.target =
        new LeaseBuilder()
            .withNewMetadata()
            .withName(lease.leaseName())
            .withNamespace(lease.namespace())
            .endMetadata()
            .build();
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "lease-registrar-" + lease.leaseName());
              t.setDaemon(true);
              return t;
            });
  }

  public static Builder builder(KubernetesClient client) {
    return new Builder(client);
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
        patchOrCreate(healthy, now);
      } catch (RuntimeException e) {
        failures.incrementAndGet();
        String problem = describe(e);
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

  private void patchOrCreate(boolean healthy, Instant now) {
    var leases = client.leases().inNamespace(lease.namespace());
    try {
      // Patching through resource(item) addresses the Lease by the item's name; withName(...)
      // would GET it first, doubling the calls per renewal.
      leases
          .resource(target)
          .patch(PatchContext.of(PatchType.JSON_MERGE), lease.renewalPatch(healthy, now));
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
      Lease created = leases.resource(lease.toLease(healthy, now)).create();
      log.info(
          "created Lease {}/{} (resourceVersion {})",
          lease.namespace(),
          lease.leaseName(),
          created.getMetadata().getResourceVersion());
    }
  }

  private boolean evaluateHealth() {
    try {
      boolean healthy = health.getAsBoolean();
      healthSupplierFailing = false;
      return healthy;
    } catch (RuntimeException e) {
      if (!healthSupplierFailing) {
        log.warn("health supplier failed, reporting unhealthy: {}", describe(e));
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

  private static String describe(Exception e) {
    if (e instanceof KubernetesClientException k && k.getCode() > 0) {
      String reason = k.getStatus() != null ? k.getStatus().getMessage() : k.getMessage();
      return "HTTP " + k.getCode() + ": " + reason;
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = e.getMessage();
    if (root != e) {
      message = message + " (" + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
    }
    return message;
  }

  /** Settings of a registrar; {@link #build()} checks them and says what is wrong. */
  public static final class Builder {
    private final KubernetesClient client;
    private String namespace;
    private String pool;
    private String replica;
    private String address;
    private long leaseDurationMillis = 900;
    private Long renewIntervalMillis;
    private BooleanSupplier health = () -> true;
    private URI healthUrl;
    private Duration healthTimeout;
    private Clock clock = Clock.systemUTC();

    private Builder(KubernetesClient client) {
      this.client = Objects.requireNonNull(client, "client");
    }

    public Builder namespace(String namespace) {
      this.namespace = namespace;
      return this;
    }

    public Builder pool(String pool) {
      this.pool = pool;
      return this;
    }

    public Builder replica(String replica) {
      this.replica = replica;
      return this;
    }

    /** Where the member takes traffic and probes: {@code host:port}. */
    public Builder address(String address) {
      this.address = address;
      return this;
    }

    /** How long the member stays alive without a renewal. Default 900 ms. */
    public Builder leaseDurationMillis(long leaseDurationMillis) {
      this.leaseDurationMillis = leaseDurationMillis;
      return this;
    }

    /** How often to renew. Default a third of the lease duration. */
    public Builder renewIntervalMillis(long renewIntervalMillis) {
      this.renewIntervalMillis = renewIntervalMillis;
      return this;
    }

    /** The health flag sent with every renewal. Default always healthy; exceptions count false. */
    public Builder health(BooleanSupplier health) {
      this.health = Objects.requireNonNull(health, "health");
      this.healthUrl = null;
      return this;
    }

    /**
     * Health from a local URL checked at every renewal (2xx is healthy), with a time-out of half
     * the renew interval, between 50 ms and 1 s.
     */
    public Builder healthUrl(URI url) {
      return healthUrl(url, null);
    }

    public Builder healthUrl(URI url, Duration timeout) {
      this.healthUrl = Objects.requireNonNull(url, "url");
      this.healthTimeout = timeout;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public LeaseRegistrar build() {
      MemberLease lease = new MemberLease(namespace, pool, replica, address, leaseDurationMillis);
      long renew = renewIntervalMillis != null ? renewIntervalMillis : defaultRenew(lease);
      if (renew < 1) {
        throw new IllegalArgumentException("renew interval must be at least 1 ms, got " + renew);
      }
      if (renew >= leaseDurationMillis) {
        throw new IllegalArgumentException(
            "renew interval ("
                + renew
                + " ms) must be shorter than the lease ("
                + leaseDurationMillis
                + " ms); a third of it is the rule");
      }
      BooleanSupplier check = health;
      if (healthUrl != null) {
        Duration timeout =
            healthTimeout != null
                ? healthTimeout
                : Duration.ofMillis(Math.max(50, Math.min(1000, renew / 2)));
        check = new HttpHealthCheck(healthUrl, timeout);
      }
      return new LeaseRegistrar(client, lease, renew, check, clock);
    }

    private static long defaultRenew(MemberLease lease) {
      return Math.max(1, lease.leaseDurationMillis() / 3);
    }
  }
}
