package dev.replicapool.operator.push;

import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.controlplane.Convergence;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A span per snapshot version sent, from the change that led to it (a probe result, a Pod or Lease
 * event, the reconcile's start) until every data plane serving the pool applied it: a trace shows
 * how long a change took to reach the traffic, as {@code replicapool_push_convergence_seconds}
 * counts it. Within a reconcile it is the reconcile span's child; from a probe result, a trace of
 * its own. A version replaced before it converged ends as {@code superseded}, a deleted pool's as
 * {@code removed}: at most one span per pool is open.
 */
public final class PushSpans {
  static final AttributeKey<String> POOL = AttributeKey.stringKey("replicapool.pool");
  static final AttributeKey<Long> VERSION = AttributeKey.longKey("replicapool.snapshot.version");
  static final AttributeKey<Long> MEMBERS = AttributeKey.longKey("replicapool.members");
  static final AttributeKey<List<String>> GROUPS =
      AttributeKey.stringArrayKey("replicapool.data_plane_groups");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("replicapool.push.outcome");

  private final Tracer tracer;
  private final Map<String, Open> open = new ConcurrentHashMap<>();

  private record Open(long version, Span span) {}

  public PushSpans(Tracer tracer) {
    this.tracer = tracer;
  }

  /** Snapshot {@code s} went out to {@code groups}; the change behind it was seen at trigger. */
  void sent(PoolSnapshot s, Set<String> groups, long triggerNanos) {
    Span span =
        tracer
            .spanBuilder("push")
            .setAttribute(POOL, s.pool())
            .setAttribute(VERSION, s.version())
            .setAttribute(MEMBERS, (long) s.members().size())
            .setAttribute(GROUPS, groups.stream().sorted().toList())
            .setStartTimestamp(epochNanos(triggerNanos), TimeUnit.NANOSECONDS)
            .startSpan();
    Open before = open.put(s.pool(), new Open(s.version(), span));
    if (before != null) {
      end(before, "superseded", StatusCode.UNSET);
    }
  }

  /** A version reached every data plane serving its pool. */
  public void converged(Convergence c) {
    Open o = open.get(c.pool());
    if (o != null && o.version <= c.version() && open.remove(c.pool(), o)) {
      end(o, "converged", StatusCode.OK);
    }
  }

  /** The pool is gone: its push in flight ends with it. */
  void removed(String pool) {
    Open o = open.remove(pool);
    if (o != null) {
      end(o, "removed", StatusCode.UNSET);
    }
  }

  private static void end(Open o, String outcome, StatusCode status) {
    o.span.setAttribute(OUTCOME, outcome);
    o.span.setStatus(status);
    o.span.end();
  }

  // The change was timed on System.nanoTime; a span is stamped in time since the epoch.
  private static long epochNanos(long nanoTime) {
    Instant now = Instant.now();
    long ago = Math.max(0, System.nanoTime() - nanoTime);
    return now.getEpochSecond() * 1_000_000_000L + now.getNano() - ago;
  }
}
