package dev.replicapool.dataplane.accesslog;

import dev.replicapool.dataplane.proxy.ObserverChain;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.routing.Endpoint;
import java.util.ArrayList;
import java.util.List;

/**
 * What the access log says about one request, filled while it runs by whichever path carries it
 * (HTTP/1 or HTTP/2). It is the request's {@link ProxyObserver}: every event the metrics get passes
 * through here, so tries, retries, hedges and the queue's verdict are collected where they are
 * counted already, then handed on to the data plane's observer. Made only for a request that is
 * logged; event loop only until {@link AccessLog#end}, then read by the writer thread only.
 */
public final class AccessRecord extends ObserverChain {
  /**
   * One try: its member, how it ended (as the metrics name it), how long it took, a hedge or not.
   */
  public record Try(String member, String outcome, long nanos) {}

  final boolean errorsOnly;
  final long startMillis;
  final long startNanos;
  String client;
  String protocol;
  String method;
  String authority;
  String path;
  String pool;
  String traceId;
  int status;

  /** The gRPC status the client got (the member's trailers or the proxy's), null if none. */
  String grpcStatus;

  long bytesIn;
  long bytesOut;
  long firstByteNanos = -1;
  long totalNanos;
  int retries;
  int hedges;
  int flags;
  boolean local;
  private String queueOutcome;

  /** Handed to the writer: what still happens to the request (a late try) is not noted. */
  private boolean ended;

  final List<Try> tries = new ArrayList<>(2);

  AccessRecord(
      ProxyObserver next, boolean errorsOnly, long startMillis, long startNanos, String pool) {
    super(next);
    this.errorsOnly = errorsOnly;
    this.startMillis = startMillis;
    this.startNanos = startNanos;
    this.pool = pool;
  }

  /** Who asked and how: the client's address, HTTP/1.0, HTTP/1.1, HTTP/2 or gRPC. */
  public AccessRecord request(
      String client, String protocol, String method, String authority, String path) {
    this.client = client;
    this.protocol = protocol;
    this.method = method;
    this.authority = authority;
    this.path = path;
    return this;
  }

  /** The trace id of a W3C {@code traceparent} header (version-traceid-parentid-flags), if any. */
  public AccessRecord traceparent(CharSequence traceparent) {
    if (traceparent != null && traceparent.length() >= 55 && traceparent.charAt(2) == '-') {
      this.traceId = traceparent.subSequence(3, 35).toString();
    }
    return this;
  }

  /** The trace id the data plane's own trace of the request has (tracing on). */
  public AccessRecord traceId(String traceId) {
    this.traceId = traceId;
    return this;
  }

  /** The {@code grpc-status} that ended the call, the member's or the proxy's own. */
  public void grpcStatus(CharSequence status) {
    if (!ended && status != null) {
      grpcStatus = status.toString();
    }
  }

  public void bytesIn(long n) {
    bytesIn += n;
  }

  public void bytesOut(long n) {
    bytesOut += n;
  }

  /** The first byte of the answer went to the client at {@code nanos} (only the first counts). */
  public void firstByte(long nanos) {
    if (firstByteNanos < 0) {
      firstByteNanos = nanos - startNanos;
    }
  }

  /** The data plane answers the request itself; {@code flag} says why when the tries cannot. */
  public void local(AccessFlag flag) {
    local = true;
    if (flag != null) {
      flags |= flag.bit();
    }
  }

  public void flag(AccessFlag flag) {
    flags |= flag.bit();
  }

  /** Ends the record with the status the client got, {@code nanos} after the request began. */
  void end(int status, long nowNanos) {
    ended = true;
    this.status = status;
    this.totalNanos = nowNanos - startNanos;
    if (firstByteNanos < 0 && local) {
      firstByteNanos = totalNanos;
    }
    flags |= derivedFlags();
  }

  /** The flags the request's course says: the queue's verdict, the last try's failure, retries. */
  private int derivedFlags() {
    int f = 0;
    if (status == 499) {
      f |= AccessFlag.DC.bit();
    }
    if (!local || (flags & (AccessFlag.LP.bit() | AccessFlag.NR.bit())) != 0) {
      return f;
    }
    if ("overflow".equals(queueOutcome)) {
      return f | AccessFlag.UO.bit();
    }
    if ("timeout".equals(queueOutcome)) {
      return f | AccessFlag.QT.bit();
    }
    if (tries.isEmpty()) {
      return status == 503 && (flags & AccessFlag.DT.bit()) == 0 ? f | AccessFlag.UH.bit() : f;
    }
    AccessFlag last = AccessFlag.ofTryOutcome(tries.get(tries.size() - 1).outcome());
    if (last != null && (flags & AccessFlag.DT.bit()) == 0) {
      f |= last.bit();
    }
    if (tries.size() > 1) {
      f |= AccessFlag.URX.bit();
    }
    return f;
  }

  /** Whether the "errors only" setting keeps this line. */
  boolean isError() {
    return status >= 500 || flags != 0;
  }

  // ---- the request's events, on their way to the data plane's observer ---------------------

  @Override
  public void attempt(String pool, Endpoint member, String outcome, long nanos) {
    tried(member.address(), outcome, nanos);
    super.attempt(pool, member, outcome, nanos);
  }

  void tried(String member, String outcome, long nanos) {
    if (!ended) {
      tries.add(new Try(member, outcome, nanos));
    }
  }

  @Override
  public void retry(String pool, String reason) {
    if (!ended) {
      retries++;
    }
    super.retry(pool, reason);
  }

  @Override
  public void hedge(String pool, String outcome) {
    if (!ended && outcome.equals("sent")) {
      hedges++;
    }
    super.hedge(pool, outcome);
  }

  @Override
  public void queue(String pool, String outcome) {
    queueOutcome = outcome;
    super.queue(pool, outcome);
  }
}
