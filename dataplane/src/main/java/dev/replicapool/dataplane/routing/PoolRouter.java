package dev.replicapool.dataplane.routing;

import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Routing state of one pool: its members, the balancer of its policy ({@link BalancerFactory}) and
 * passive outlier detection ({@link OutlierDetector}); which members take part in a pick and at
 * what weight (slow start, panic) is {@link Candidates}'s call. Past 300 lines only by the /status
 * view, which needs the same lock and member list. Plain code: time comes from an injected
 * nanosecond clock and randomness from an injected {@link Random}, so every transition can be
 * tested without I/O.
 *
 * <p>Thread-safe: picks and results from any event loop serialize on one lock, which a router built
 * from a newer snapshot of the same pool inherits (members carry over by address).
 */
public final class PoolRouter {

  private final String pool;
  private final RouterSettings settings;
  private final List<Endpoint> endpoints;
  private final Balancer balancer;
  private final OutlierDetector outliers;
  private final LongSupplier clock;
  private final EjectionEvents events;
  private final Object lock;
  private final Candidates candidates;

  /**
   * A pick's time, list of candidates and ejection test, reused under the lock so that a pick
   * allocates nothing (it runs once per request and per try).
   */
  private long pickNanos;

  private final List<Endpoint> chosenNow = new ArrayList<>();
  private final Predicate<Endpoint> ejectedNow = this::ejectedAtPick;
  private final HashKey hashKey;

  /** Carried-over members and their new snapshot, until {@link #activate()}; under lock. */
  private List<Carried> pending;

  private record Carried(Endpoint endpoint, MemberSnapshot next) {}

  /** With the balancer and detector of this snapshot, taking over {@code previous}'s state. */
  private PoolRouter(
      String pool,
      RouterSettings settings,
      List<Endpoint> endpoints,
      List<MemberSnapshot> members,
      PoolRouter previous,
      Random random,
      LongSupplier clock,
      EjectionEvents events,
      Object lock) {
    this.pool = pool;
    this.settings = settings;
    this.endpoints = endpoints;
    this.balancer =
        BalancerFactory.of(settings.policy(), random, settings.hash())
            .create(endpoints, members, previous == null ? null : previous.balancer);
    this.outliers =
        new OutlierDetector(
            settings.outlier(),
            endpoints,
            previous == null ? null : previous.outliers,
            clock,
            events);
    this.clock = clock;
    this.events = events;
    this.lock = lock;
    this.candidates = new Candidates(settings.slowStart(), settings.panicThresholdPercent());
    this.hashKey =
        settings.policy() == RoutingPolicy.ConsistentHash
            ? new HashKey(
                settings.hash() != null ? settings.hash() : HashPolicy.from(null),
                () -> ThreadLocalRandom.current().nextLong())
            : null;
  }

  /**
   * Builds the router for a pool's snapshot, carrying over what {@code previous} (the router of the
   * pool's earlier snapshot, or null) knew about members that are still there.
   */
  public static PoolRouter create(
      String pool,
      RouterSettings settings,
      List<MemberSnapshot> members,
      PoolRouter previous,
      LongSupplier clock,
      Random random,
      EjectionEvents events) {
    Map<String, Endpoint> old = endpointsByAddress(previous);
    Object lock = previous != null ? previous.lock : new Object();
    List<Endpoint> endpoints = new ArrayList<>(members.size());
    List<Carried> carried = new ArrayList<>();
    long now = clock.getAsLong();
    // A member new to a pool that already routes somewhere joins late: slow start applies to it.
    boolean poolRoutes =
        previous != null && previous.endpoints.stream().anyMatch(Endpoint::admitted);
    for (MemberSnapshot m : members) {
      Endpoint e = old.get(m.address());
      if (e != null) {
        // Shared with the live router: its new weight and state wait for activate().
        carried.add(new Carried(e, m));
      } else {
        e = newEndpoint(m, settings, now, poolRoutes);
      }
      endpoints.add(e);
    }
    PoolRouter router =
        new PoolRouter(
            pool, settings, List.copyOf(endpoints), members, previous, random, clock, events, lock);
    router.pending = carried;
    return router;
  }

  /** The members of {@code previous} (null: none) by address. */
  private static Map<String, Endpoint> endpointsByAddress(PoolRouter previous) {
    Map<String, Endpoint> byAddress = new HashMap<>();
    if (previous != null) {
      for (Endpoint e : previous.endpoints) {
        byAddress.put(e.address(), e);
      }
    }
    return byAddress;
  }

  /** A member new to the pool, with no latency samples yet. */
  private static Endpoint newEndpoint(
      MemberSnapshot m, RouterSettings settings, long now, boolean joinedLate) {
    Endpoint e =
        new Endpoint(
            m.host(),
            m.port(),
            m.weight(),
            m.state(),
            new PeakEwma(settings.ewmaTauMillis(), settings.defaultLatencyMillis(), now));
    e.joinedLate = joinedLate;
    return e;
  }

  /**
   * Gives the members carried over from the previous router their new weight and state. Called once
   * the router is installed: until then the previous router still routes with these very {@link
   * Endpoint}s, and a snapshot that is refused (a port that will not bind) must leave them as they
   * were. Idempotent.
   */
  public void activate() {
    synchronized (lock) {
      if (pending == null) {
        return;
      }
      for (Carried c : pending) {
        c.endpoint().update(c.next().weight(), c.next().state());
      }
      pending = null;
      long now = clock.getAsLong();
      endpoints.forEach(e -> Candidates.noteAdmitted(e, now));
    }
  }

  public String pool() {
    return pool;
  }

  public RouterSettings settings() {
    return settings;
  }

  /** The balancer of this snapshot (tests look at its per-member state). */
  Balancer balancer() {
    return balancer;
  }

  /** All members of the snapshot, routable or not, in snapshot order. */
  public List<Endpoint> endpoints() {
    return endpoints;
  }

  /**
   * The member for the next request, or null when none may take it.
   *
   * @param tried members this request already failed on (a retry goes elsewhere)
   */
  public Endpoint pick(Collection<Endpoint> tried) {
    return pick(tried, HashKey.NONE);
  }

  /**
   * The same for a request with a hash key ({@link HashKey#NONE}: none), which only the
   * ConsistentHash policy reads.
   */
  public Endpoint pick(Collection<Endpoint> tried, long key) {
    synchronized (lock) {
      pickNanos = clock.getAsLong();
      List<Endpoint> chosen = candidates.select(endpoints, tried, pickNanos, ejectedNow, chosenNow);
      Endpoint e = chosen.isEmpty() ? null : balancer.pick(chosen, key, pickNanos);
      chosenNow.clear(); // holds no member past the pick
      return e;
    }
  }

  /**
   * Whether a pick past {@code tried} would find a member now (panic included): a retry or a hedge
   * is decided, and paid for, only when one is left.
   */
  public boolean anyLeft(Collection<Endpoint> tried) {
    synchronized (lock) {
      pickNanos = clock.getAsLong();
      boolean any =
          !candidates.select(endpoints, tried, pickNanos, ejectedNow, chosenNow).isEmpty();
      chosenNow.clear();
      return any;
    }
  }

  private boolean ejectedAtPick(Endpoint e) {
    return outliers.ejected(e, pickNanos);
  }

  /** How a request's key is found, for a ConsistentHash pool; null for the other policies. */
  public HashKey hashKey() {
    return hashKey;
  }

  /** A response below 500 came back after {@code latencyNanos}. */
  public void success(Endpoint e, long latencyNanos) {
    synchronized (lock) {
      e.latency.observe(latencyNanos / 1e6, clock.getAsLong());
      outliers.success(e);
    }
  }

  /**
   * A try given up without an answer (another try answered first) after {@code latencyNanos}: a
   * lower bound of the member's latency, so that the Adaptive policy learns it is slow. Neither a
   * success nor a failure.
   */
  public void slowerThan(Endpoint e, long latencyNanos) {
    synchronized (lock) {
      e.latency.observe(latencyNanos / 1e6, clock.getAsLong());
    }
  }

  /**
   * The member refused the connection, reset it, timed out or answered 5xx. Counts as a latency of
   * at least the failure penalty and may eject the member.
   *
   * @return true when this failure ejected it
   */
  public boolean failure(Endpoint e, long latencyNanos) {
    synchronized (lock) {
      long now = clock.getAsLong();
      e.failures.increment();
      e.latency.observe(Math.max(latencyNanos / 1e6, settings.failurePenaltyMillis()), now);
      return outliers.failure(e);
    }
  }

  /** Members that may take requests now: admitted by the operator and not ejected. */
  public int routableCount() {
    synchronized (lock) {
      long now = clock.getAsLong();
      int n = 0;
      for (Endpoint e : endpoints) {
        if (e.admitted() && !outliers.ejected(e, now)) {
          n++;
        }
      }
      return n;
    }
  }

  /** True while too few members are routable and requests go to all registered members. */
  public boolean panic() {
    synchronized (lock) {
      long now = clock.getAsLong();
      return candidates.panic(endpoints, e -> outliers.ejected(e, now));
    }
  }

  /** Members ejected now. */
  public int ejectedCount() {
    synchronized (lock) {
      long now = clock.getAsLong();
      int n = 0;
      for (Endpoint e : endpoints) {
        if (outliers.ejected(e, now)) {
          n++;
        }
      }
      return n;
    }
  }

  /** What /status shows about a member. */
  public record MemberView(
      String address,
      double weight,
      double effectiveWeight,
      String state,
      boolean routable,
      boolean ejected,
      long ejectedForMillis,
      int ejections,
      int consecutiveFailures,
      int inflight,
      double latencyMillis,
      long requests,
      long failures) {}

  public List<MemberView> view() {
    synchronized (lock) {
      long now = clock.getAsLong();
      boolean panic = candidates.panic(endpoints, e -> outliers.ejected(e, now));
      List<MemberView> views = new ArrayList<>(endpoints.size());
      for (Endpoint e : endpoints) {
        boolean ej = outliers.ejected(e, now);
        double effective =
            panic
                ? (Candidates.registered(e) ? 1.0 : 0.0)
                : e.admitted() && !ej ? candidates.effectiveWeight(e, now) : 0.0;
        views.add(
            new MemberView(
                e.address(),
                e.weight(),
                Math.round(effective * 1000) / 1000.0,
                String.valueOf(e.state()),
                e.admitted() && !ej,
                ej,
                outliers.ejectedForMillis(e, now),
                outliers.ejections(e),
                outliers.consecutiveFailures(e),
                e.inflight(),
                Math.round(e.latency.value(now) * 100) / 100.0,
                e.requests(),
                e.failures()));
      }
      return views;
    }
  }
}
