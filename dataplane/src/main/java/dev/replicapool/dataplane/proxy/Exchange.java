package dev.replicapool.dataplane.proxy;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.routing.Endpoint;
import io.vertx.httpproxy.ProxyResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * One client request on its way through the proxy: the pool it goes to, the members it tried and
 * the member it is on now. Touched only on the request's event loop.
 */
final class Exchange {
  static final String KEY = "replicapool.exchange";

  final PoolRuntime pool;
  final long startNanos;
  final boolean idempotent;
  boolean bodyless;
  final List<Endpoint> tried = new ArrayList<>(2);
  int connectRetries;
  int resetRetries;
  boolean retried5xx;
  boolean bodyTooLarge;

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
