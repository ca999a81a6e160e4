package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.accesslog.AccessFlag;
import dev.replicapool.dataplane.accesslog.AccessLog;
import dev.replicapool.dataplane.accesslog.AccessRecord;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.tracing.RequestTrace;
import dev.replicapool.dataplane.tracing.Tracing;
import java.util.function.LongSupplier;

/**
 * What the proxy writes down about one request, whatever its protocol: its metrics always, its
 * access-log line when the pool logs it (sampled), its trace when tracing is on. An HTTP/1.x
 * exchange ({@link Http1Exchange}) and an HTTP/2 stream ({@link H2StreamForwarder}) each begin one
 * when the request's head is read, and its {@link TryLoop} ends it once ({@link TryLoop#end}), so
 * both count and log the same way; the tries' events go through {@link #observer()} (trace, then
 * access-log record, then metrics), what only the exchange knows (bytes, first byte, flags) through
 * the methods here, each a no-op when the request is not logged.
 *
 * <p>Event loop only.
 */
final class RequestRecord {
  private final AccessLog accessLog;
  private final String pool;
  private final long start;

  /** Its access-log record; null when the request is not logged. */
  private final AccessRecord log;

  /** Its trace; null when tracing is off. */
  private final RequestTrace trace;

  private final ProxyObserver observer;
  private boolean ended;

  /**
   * @param metrics where every event ends up, logged or not
   * @param spec the pool's access-log settings, null for none
   * @param traced what the client's request says of its trace, null when tracing is off
   */
  RequestRecord(
      AccessLog accessLog,
      Tracing tracing,
      ProxyObserver metrics,
      LongSupplier clock,
      String pool,
      dev.replicapool.api.v1alpha1.AccessLog spec,
      long start,
      RequestTrace.Incoming traced) {
    this.accessLog = accessLog;
    this.pool = pool;
    this.start = start;
    this.log = accessLog.begin(pool, spec, metrics, start);
    ProxyObserver logged = log == null ? metrics : log;
    this.trace =
        traced == null || tracing == null
            ? null
            : new RequestTrace(tracing, logged, clock, start, traced);
    if (trace != null && log != null) {
      log.traceId(trace.traceId());
    }
    this.observer = trace == null ? logged : trace;
  }

  /** The record of a request to {@code pool} whose head was read at {@code start}. */
  static RequestRecord begin(
      Forwarding fw, PoolRuntime pool, long start, RequestTrace.Incoming traced) {
    return new RequestRecord(
        fw.accessLog,
        fw.tracing,
        fw.observer,
        fw.clock,
        pool.name(),
        pool.snapshot().accessLog(),
        start,
        traced);
  }

  /** Where the tries' events go: the trace, the access-log record, then the metrics. */
  ProxyObserver observer() {
    return observer;
  }

  /** The traceparent a try to {@code member} sent at {@code sentAt} carries; null without one. */
  String traceparentFor(Endpoint member, long sentAt) {
    return trace == null ? null : trace.traceparentFor(member, sentAt);
  }

  /** The request's trace, null when it has none. */
  RequestTrace trace() {
    return trace;
  }

  /**
   * Its access-log record, null when the request is not logged: the caller describes the request on
   * it (what the client asked) only then, so that an unlogged request reads no more of its head.
   */
  AccessRecord log() {
    return log;
  }

  void bytesIn(long n) {
    if (log != null) {
      log.bytesIn(n);
    }
  }

  /** Adds {@code n} bytes of the answer sent to the client. */
  void bytesOut(long n) {
    if (log != null) {
      log.bytesOut(n);
    }
  }

  /** The answer's first byte went to the client at {@code now}. */
  void firstByte(long now) {
    if (log != null) {
      log.firstByte(now);
    }
  }

  void flag(AccessFlag f) {
    if (log != null && f != null) {
      log.flag(f);
    }
  }

  /** The proxy answers itself, {@code why} or null when its tries tell. */
  void local(AccessFlag why) {
    if (log != null) {
      log.local(why);
    }
  }

  /** The gRPC status the call ended with, as the client got it. */
  void grpcStatus(CharSequence status) {
    if (log != null) {
      log.grpcStatus(status);
    }
  }

  /**
   * The request ended with {@code status} at {@code now}: counted, and its access-log line queued.
   * Only the first call counts.
   */
  void end(int status, long now) {
    if (ended) {
      return;
    }
    ended = true;
    observer.response(pool, status, now - start);
    if (log != null) {
      accessLog.end(log, status, now);
    }
  }

  boolean ended() {
    return ended;
  }
}
