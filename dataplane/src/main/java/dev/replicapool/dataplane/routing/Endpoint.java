package dev.replicapool.dataplane.routing;

import dev.replicapool.api.v1alpha1.MemberState;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * One member of a pool as the data plane routes to it: the operator's weight and state plus what
 * this data plane learned locally (in-flight requests, latency). What a balancer or the {@link
 * OutlierDetector} keeps per member is theirs, not the endpoint's.
 *
 * <p>An Endpoint outlives snapshots: a new snapshot that still lists the same address keeps the
 * same object (and so its latency, and to the balancer and detector the same key). Fields marked
 * "pool lock" are only touched while holding the owning {@link PoolRouter}'s lock.
 */
public final class Endpoint {
  private final String host;
  private final int port;
  private final String address;
  private volatile double weight;
  private volatile MemberState state;

  final AtomicInteger inflight = new AtomicInteger();
  final PeakEwma latency;
  final LongAdder requests = new LongAdder();
  final LongAdder failures = new LongAdder();

  /**
   * How long a member's own load report counts: after that it is balanced as one that is silent.
   */
  public static final long REPORT_TTL_NANOS = 5_000_000_000L;

  // The member's last load report (ORCA): written by any event loop, a torn pair only makes one
  // pick use a report a little older or newer.
  private volatile double reportedUtilization;
  private volatile long reportedAtNanos;
  private volatile boolean reported;
  private volatile double reportedInFlight = Double.NaN;

  /**
   * How long a member's own count of the requests it holds counts, fading to nothing: a count is
   * true the moment it is sent and less so after, and a member that answers rarely (because it is
   * busy) must not be kept out by one old burst; its utilization stays for {@link
   * #REPORT_TTL_NANOS}.
   */
  public static final long IN_FLIGHT_FADE_NANOS = 1_000_000_000L;

  // pool lock, written by Candidates (the balancers and the OutlierDetector keep their own state)

  /** The weight the balancer uses: the operator's, times the slow-start ramp, or 1 in panic. */
  double effectiveWeight;

  /** Joined a pool that already had routable members: its weight ramps up (slow start). */
  boolean joinedLate;

  /** When this data plane first saw it admitted; meaningful once {@code seenAdmitted}. */
  long admittedSinceNanos;

  boolean seenAdmitted;

  Endpoint(String host, int port, double weight, MemberState state, PeakEwma latency) {
    this.host = host;
    this.port = port;
    this.address = host + ":" + port;
    this.weight = weight;
    this.state = state;
    this.latency = latency;
    this.effectiveWeight = weight;
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  public String address() {
    return address;
  }

  public double weight() {
    return weight;
  }

  public MemberState state() {
    return state;
  }

  public int inflight() {
    return inflight.get();
  }

  /**
   * The member reported its load in an answer at {@code now}: its utilization (0 = idle, 1 = at
   * capacity) and the requests it holds, every client's ({@code inFlight}; NaN when it did not
   * say).
   */
  public void reportLoad(double utilization, double inFlight, long nowNanos) {
    reportedUtilization = utilization;
    reportedInFlight = inFlight;
    reportedAtNanos = nowNanos;
    reported = true;
  }

  /**
   * The requests it said it holds, faded by the report's age (all of it at once, nothing after
   * {@link #IN_FLIGHT_FADE_NANOS}); NaN when it did not say or said it too long ago.
   */
  public double reportedInFlight(long nowNanos) {
    double n = reportedInFlight;
    if (!reported || Double.isNaN(n)) {
      return Double.NaN;
    }
    double left = 1 - (double) (nowNanos - reportedAtNanos) / IN_FLIGHT_FADE_NANOS;
    return left > 0 ? n * Math.min(1, left) : Double.NaN;
  }

  /** Its last reported utilization if it is at most {@link #REPORT_TTL_NANOS} old, else NaN. */
  public double utilization(long nowNanos) {
    return reported && nowNanos - reportedAtNanos <= REPORT_TTL_NANOS
        ? reportedUtilization
        : Double.NaN;
  }

  public long requests() {
    return requests.sum();
  }

  public long failures() {
    return failures.sum();
  }

  void update(double weight, MemberState state) {
    this.weight = weight;
    this.state = state;
    this.effectiveWeight = weight;
  }

  /**
   * The operator lets it take new requests: a positive weight and Healthy or Degraded (not Pending,
   * Unhealthy or Draining).
   */
  public boolean admitted() {
    return weight > 0 && (state == MemberState.Healthy || state == MemberState.Degraded);
  }

  /** Called when a request is sent to it; pair with {@link #release()}. */
  public void acquire() {
    inflight.incrementAndGet();
    requests.increment();
  }

  /**
   * Like {@link #acquire()}, but only while fewer than {@code limit} requests are in flight on it
   * (from this data plane); false when it is full.
   */
  public boolean tryAcquire(int limit) {
    int now;
    do {
      now = inflight.get();
      if (now >= limit) {
        return false;
      }
    } while (!inflight.compareAndSet(now, now + 1));
    requests.increment();
    return true;
  }

  /** Called when a request sent to it ended, whatever the outcome. */
  public void release() {
    inflight.decrementAndGet();
  }

  @Override
  public String toString() {
    return address;
  }
}
