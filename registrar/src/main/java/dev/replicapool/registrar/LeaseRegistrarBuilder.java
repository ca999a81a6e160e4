package dev.replicapool.registrar;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;

/**
 * Settings of a {@link LeaseRegistrar}, from {@link LeaseRegistrar#builder}; {@link #build()}
 * checks them and says what is wrong.
 */
public final class LeaseRegistrarBuilder {
  /** The default health flag, named so that the start-up log line says what it is. */
  private static final BooleanSupplier ALWAYS_HEALTHY =
      new BooleanSupplier() {
        @Override
        public boolean getAsBoolean() {
          return true;
        }

        @Override
        public String toString() {
          return "always healthy";
        }
      };

  private final BiFunction<String, String, LeaseApi> apis;
  private String namespace;
  private String pool;
  private String replica;
  private String address;
  private long leaseDurationMillis = 900;
  private Long renewIntervalMillis;
  private BooleanSupplier health = ALWAYS_HEALTHY;
  private URI healthUrl;
  private Duration healthTimeout;
  private Clock clock = Clock.systemUTC();

  LeaseRegistrarBuilder(BiFunction<String, String, LeaseApi> apis) {
    this.apis = Objects.requireNonNull(apis, "apis");
  }

  public LeaseRegistrarBuilder namespace(String namespace) {
    this.namespace = namespace;
    return this;
  }

  public LeaseRegistrarBuilder pool(String pool) {
    this.pool = pool;
    return this;
  }

  public LeaseRegistrarBuilder replica(String replica) {
    this.replica = replica;
    return this;
  }

  /** Where the member takes traffic and probes: {@code host:port}. */
  public LeaseRegistrarBuilder address(String address) {
    this.address = address;
    return this;
  }

  /** How long the member stays alive without a renewal. Default 900 ms. */
  public LeaseRegistrarBuilder leaseDurationMillis(long leaseDurationMillis) {
    this.leaseDurationMillis = leaseDurationMillis;
    return this;
  }

  /** How often to renew. Default a third of the lease duration. */
  public LeaseRegistrarBuilder renewIntervalMillis(long renewIntervalMillis) {
    this.renewIntervalMillis = renewIntervalMillis;
    return this;
  }

  /** The health flag sent with every renewal. Default always healthy; exceptions count false. */
  public LeaseRegistrarBuilder health(BooleanSupplier health) {
    this.health = Objects.requireNonNull(health, "health");
    this.healthUrl = null;
    return this;
  }

  /**
   * Health from a local URL checked at every renewal (2xx is healthy), with a time-out of half the
   * renew interval, between 50 ms and 1 s.
   */
  public LeaseRegistrarBuilder healthUrl(URI url) {
    return healthUrl(url, null);
  }

  public LeaseRegistrarBuilder healthUrl(URI url, Duration timeout) {
    this.healthUrl = Objects.requireNonNull(url, "url");
    this.healthTimeout = timeout;
    return this;
  }

  public LeaseRegistrarBuilder clock(Clock clock) {
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
    return new LeaseRegistrar(
        apis.apply(lease.namespace(), lease.leaseName()), lease, renew, check, clock);
  }

  private static long defaultRenew(MemberLease lease) {
    return Math.max(1, lease.leaseDurationMillis() / 3);
  }
}
