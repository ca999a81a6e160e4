package dev.replicapool.dataplane.proxy;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.routing.Endpoint;
import io.vertx.httpproxy.ProxyResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One client request on its way through the proxy: the pool it goes to, the members it tried and
 * the member it is on now. Touched only on the request's event loop.
 */
final class Exchange {
  static final String KEY = "replicapool.exchange";

  /**
   * Why the proxy gave the request up on the client's side, and what it answers. None of these is
   * the member's doing: they are never counted against it nor retried.
   */
  enum Abort {
    /** The body grew past the limit: 413, on the spot. */
    BODY_TOO_LARGE(413),
    /** HTTP/1.x: the body cannot be framed (say, an invalid chunk size): 400, on the spot. */
    MALFORMED_BODY(400),
    /** The client closed its connection or reset its stream: nobody to answer (499 in metrics). */
    CLIENT_GONE(499);

    final int status;

    Abort(int status) {
      this.status = status;
    }
  }

  final PoolRuntime pool;
  final long startNanos;
  final boolean idempotent;
  boolean bodyless;
  final List<Endpoint> tried = new ArrayList<>(2);
  int connectRetries;
  int resetRetries;
  boolean retried5xx;

  /** Set once, when the client's side fails (see {@link Abort}). */
  Abort aborted;

  /** The client's body on its way to the member; null for bodyless requests. */
  InboundBody body;

  /** The request to the current member, once there is one. */
  UpstreamRequest upstream;

  /** Where errors of the client's side go (the request's, its response's, reset causes). */
  Consumer<Throwable> clientFailure = t -> {};

  /** A 502/503 kept while trying another member; sent if no other member can take the request. */
  ProxyResponse held;

  Endpoint current;
  long attemptStartNanos;
  int failureStatus = 502;
  String failureMessage;
  private boolean finished;

  Exchange(PoolRuntime pool, long startNanos, boolean idempotent) {
    this.pool = pool;
    this.startNanos = startNanos;
    this.idempotent = idempotent;
  }

  String poolName() {
    return pool == null ? "none" : pool.name();
  }

  void begin(Endpoint e, long now) {
    current = e;
    tried.add(e);
    e.acquire();
    attemptStartNanos = now;
  }

  /** Ends the current try (in-flight count), returns its duration; 0 when none is running. */
  long endAttempt(long now) {
    if (current == null) {
      return 0;
    }
    current.release();
    current = null;
    return now - attemptStartNanos;
  }

  /** True the first time only. */
  boolean finish() {
    if (finished) {
      return false;
    }
    finished = true;
    return true;
  }
}
