package dev.replicapool.dataplane.policy;

import dev.replicapool.api.v1alpha1.RequestQueue;
import dev.replicapool.api.v1alpha1.Retry;
import dev.replicapool.api.v1alpha1.RetryBudget;
import dev.replicapool.api.v1alpha1.Timeouts;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.dataplane.routing.Endpoint;
import java.util.function.LongSupplier;

/**
 * What a pool's requests are held to beyond the choice of member: timeouts, hedging, the retry
 * budget, the in-flight limit per member and the queue before it. The live parts (budget, latency
 * window, queue) carry over to the next snapshot of the pool when their settings did not change, so
 * a snapshot that only moves members does not reset them.
 *
 * @param requestNanos the whole request's time, 0 for none
 * @param perTryNanos one try's time to its answer's head, 0 for none
 * @param idleNanos the longest silence of a member mid-exchange
 * @param hedging null when the pool does not hedge
 * @param maxPerMember in-flight requests per member at most, 0 for no limit
 * @param queue null when requests over the limit get 503 at once
 * @param idempotent what the pool's members may receive twice, for retries and hedges alike
 */
public record RequestPolicy(
    long requestNanos,
    long perTryNanos,
    long idleNanos,
    HedgePolicy hedging,
    RetryBudgetWindow budget,
    LatencyWindow latencies,
    int maxPerMember,
    AdmissionQueue queue,
    IdempotentRequests idempotent) {

  /** Builds the pool's policy, reusing the previous one's live parts where the settings agree. */
  public static RequestPolicy from(
      PoolSnapshot s,
      RequestPolicy previous,
      long defaultIdleNanos,
      double baselineMillis,
      LongSupplier clock) {
    Timeouts t = s.timeouts() != null ? s.timeouts() : new Timeouts();
    long idle = t.idleMillis != null ? millis(t.idleMillis) : defaultIdleNanos;
    Retry retry = s.retry() != null ? s.retry() : new Retry();
    RetryBudget b = retry.budget != null ? retry.budget : new RetryBudget();
    RetryBudget d = new RetryBudget();
    int percent = b.percent != null ? b.percent : d.percent;
    int minPerSecond =
        b.minRetriesPerSecond != null ? b.minRetriesPerSecond : d.minRetriesPerSecond;
    RetryBudgetWindow budget =
        previous != null
                && previous.budget.percent() == percent
                && previous.budget.minPerSecond() == minPerSecond
            ? previous.budget
            : new RetryBudgetWindow(percent, minPerSecond, clock);
    LatencyWindow latencies = previous != null ? previous.latencies : new LatencyWindow(clock);
    int max = s.maxRequestsPerMember() == null ? 0 : Math.max(0, s.maxRequestsPerMember());
    return new RequestPolicy(
        millis(t.requestMillis),
        millis(t.perTryMillis),
        idle,
        HedgePolicy.from(s.hedging(), baselineMillis),
        budget,
        latencies,
        max,
        max > 0 ? queue(s.queue(), previous, clock) : null,
        IdempotentRequests.from(s.idempotent(), s.hedging()));
  }

  /** Timeouts only, for pools built without a snapshot's policies (tests, defaults). */
  public static RequestPolicy defaults(long idleNanos, LongSupplier clock) {
    RetryBudget d = new RetryBudget();
    return new RequestPolicy(
        0,
        0,
        idleNanos,
        null,
        new RetryBudgetWindow(d.percent, d.minRetriesPerSecond, clock),
        new LatencyWindow(clock),
        0,
        null,
        IdempotentRequests.DEFAULT);
  }

  /** A try on {@code e} ended: its slot is free, and the longest-waiting request may take it. */
  public void released(Endpoint e) {
    e.release();
    if (queue != null) {
      queue.slotFreed();
    }
  }

  private static AdmissionQueue queue(RequestQueue q, RequestPolicy previous, LongSupplier clock) {
    RequestQueue d = new RequestQueue();
    int pending = q != null && q.maxPending != null ? q.maxPending : d.maxPending;
    long timeout = millis(q != null && q.timeoutMillis != null ? q.timeoutMillis : d.timeoutMillis);
    AdmissionQueue before = previous == null ? null : previous.queue;
    if (before != null && before.maxPending() == pending && before.timeoutNanos() == timeout) {
      return before;
    }
    return new AdmissionQueue(pending, timeout, clock);
  }

  private static long millis(Long ms) {
    return ms == null || ms <= 0 ? 0 : ms * 1_000_000L;
  }
}
