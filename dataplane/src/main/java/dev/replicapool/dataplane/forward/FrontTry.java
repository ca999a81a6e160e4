package dev.replicapool.dataplane.forward;

import dev.replicapool.controlplane.load.LoadReport;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.exchange.TryCourse;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.routing.Endpoint;

/**
 * The try in front of one HTTP/1.x exchange (the one whose answer the client is to get): which
 * member it went to and since when, and how its end is counted: the member's in-flight slot, its
 * health in the pool's router, the latency window, the metrics. {@link Http1Exchange} decides when
 * a try starts and ends; this keeps the accounts. It keeps the accounts of the exchange's hedges
 * too, as its {@link TryCourse}'s {@link TryCourse.Accounts} (one object fewer per request). Event
 * loop only.
 */
final class FrontTry implements TryCourse.Accounts<H1Try> {
  private static final String[] STATUS_CLASS = {"0xx", "1xx", "2xx", "3xx", "4xx", "5xx"};

  private final Forwarding fw;
  private final PoolRuntime pool;
  private final RequestRecord record;

  private Endpoint member;
  private long since;
  private Endpoint last;

  /**
   * @param record what is written down about the request: its observer, its trace
   */
  FrontTry(Forwarding fw, PoolRuntime pool, RequestRecord record) {
    this.fw = fw;
    this.pool = pool;
    this.record = record;
  }

  /**
   * The traceparent of a try to {@code e} sent at {@code sentAt}, whose head goes out now; null
   * when the request has no trace.
   */
  String traceparent(Endpoint e, long sentAt) {
    return record.traceparentFor(e, sentAt);
  }

  /** The traceparent of the try in front, whose head goes out now; null without a trace. */
  String traceparent() {
    return traceparent(member, since);
  }

  /** Where the request's events go: its access-log record, when logged, then the metrics. */
  ProxyObserver observer() {
    return record.observer();
  }

  /** The member of the try in front; null while none is (waiting in the queue, only hedges). */
  Endpoint member() {
    return member;
  }

  /** Try {@code t} is in front now: the first, a retry, or a hedge whose answer came first. */
  void start(H1Try t) {
    member = t.member();
    since = t.sentAt();
  }

  /** The try in front is over: its member's slot is free again. Returns how long it took. */
  long end() {
    Endpoint e = member;
    if (e == null) {
      return 0;
    }
    pool.requests().released(e);
    member = null;
    last = e;
    return fw.clock.getAsLong() - since;
  }

  /** The member of the try in front said how loaded it is ({@code r}; null: it did not). */
  void reported(LoadReport r) {
    if (r != null && member != null) {
      member.reportLoad(r.utilization(), r.inFlight(), fw.clock.getAsLong());
    }
  }

  /** Its answer's head came at {@code now}: a sample for the latency window, counted by status. */
  void answered(long now, int status) {
    long nanos = now - since;
    pool.requests().latencies().record(nanos);
    if (status >= 500) {
      pool.router().failure(member, nanos);
    } else {
      pool.router().success(member, nanos);
    }
    record.observer().answered(member, status);
    record.observer().attempt(pool.name(), member, STATUS_CLASS[status / 100], nanos);
  }

  /** The try in front failed: ended and counted against its member, which it returns. */
  Endpoint failed(String outcome) {
    long nanos = end();
    Endpoint e = last;
    pool.router().failure(e, nanos);
    record.observer().attempt(pool.name(), e, outcome, nanos);
    return e;
  }

  /** The client gave up: ended, not the member's doing. */
  void aborted() {
    Endpoint e = member;
    long nanos = end();
    if (e != null) {
      record.observer().attempt(pool.name(), e, "aborted", nanos);
    }
  }

  /** A hedge answered first: the try in front, if any, ends as the slower one. */
  void lostToHedge() {
    Endpoint slow = member;
    if (slow == null) {
      return;
    }
    long nanos = end();
    pool.router().slowerThan(slow, nanos);
    // Its time so far is a sample too: without it the window would only see the answers that
    // came first, its percentile would sink and ever more requests would be hedged.
    pool.requests().latencies().record(nanos);
    record.observer().attempt(pool.name(), slow, "cancelled", nanos);
  }

  @Override
  public void hedge(String outcome) {
    record.observer().hedge(pool.name(), outcome);
  }

  /**
   * Try {@code t} is over without carrying the answer: the one in front is counted as above; a
   * hedge frees its member's slot and counts its attempt, and a failure against its member.
   */
  @Override
  public void ended(H1Try t, TryCourse.End end, boolean inFront, String label, long now) {
    t.cancel();
    if (inFront) {
      switch (end) {
        case FAILED -> failed(label);
        case SLOWER -> lostToHedge();
        case CANCELLED -> aborted();
      }
      return;
    }
    long nanos = now - t.sentAt();
    pool.requests().released(t.member());
    if (end == TryCourse.End.FAILED) {
      pool.router().failure(t.member(), nanos);
    }
    record.observer().attempt(pool.name(), t.member(), label, nanos);
  }
}
