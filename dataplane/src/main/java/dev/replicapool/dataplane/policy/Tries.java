package dev.replicapool.dataplane.policy;

import dev.replicapool.dataplane.config.RetryPolicy;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.HashKey;
import dev.replicapool.dataplane.routing.PoolRouter;
import java.util.ArrayList;
import java.util.List;

/**
 * The tries of one request and the one place that decides whether another try follows. A request
 * that never reached a member (connect failure) may always go elsewhere; one whose connection broke
 * before any answer only when it is idempotent and carried no body (the member may have acted on
 * it, but doing it twice is harmless); a 502/503 answer once, for the same requests, when the pool
 * allows it. Every retry goes to a member not tried yet. Plain code, no I/O.
 */
public final class Tries {
  /** How a try ended, as far as retrying is concerned. */
  public enum Outcome {
    /** Connection refused or not established in time: nothing was sent. */
    CONNECT_FAILURE,
    /** The connection broke before any response byte. */
    RESET_BEFORE_RESPONSE,
    /** The member answered 502 or 503. */
    UNAVAILABLE_ANSWER
  }

  private final RetryPolicy policy;
  private final boolean idempotent;
  private final boolean bodyless;
  private final List<Endpoint> tried = new ArrayList<>(2);
  private final long hashKey;
  private int connectRetries;
  private boolean retriedAnswer;

  public Tries(RetryPolicy policy, boolean idempotent, boolean bodyless) {
    this(policy, idempotent, bodyless, HashKey.NONE);
  }

  /**
   * @param hashKey the request's key for a ConsistentHash pool ({@link HashKey}), every try
   */
  public Tries(RetryPolicy policy, boolean idempotent, boolean bodyless, long hashKey) {
    this.policy = policy;
    this.idempotent = idempotent;
    this.bodyless = bodyless;
    this.hashKey = hashKey;
  }

  /**
   * The member for the next try, from the pool's balancer among those not tried yet, counted in
   * flight on it (release it when the try ends); null when none may take it.
   */
  public Endpoint next(PoolRouter router) {
    Endpoint e = router.pick(tried, hashKey);
    if (e != null) {
      tried.add(e);
      e.acquire();
    }
    return e;
  }

  /** Members this request already went to: a retry goes elsewhere. */
  public List<Endpoint> tried() {
    return tried;
  }

  /** Whether a try that ended so is followed by another (and counts it when it is). */
  public boolean shouldRetry(Outcome outcome) {
    switch (outcome) {
      case CONNECT_FAILURE -> {
        if (connectRetries < policy.connectFailureRetries()) {
          connectRetries++;
          return true;
        }
        return false;
      }
      case RESET_BEFORE_RESPONSE -> {
        if (bodyless && idempotent && connectRetries < policy.connectFailureRetries()) {
          connectRetries++;
          return true;
        }
        return false;
      }
      case UNAVAILABLE_ANSWER -> {
        if (policy.retryIdempotentOn5xx() && idempotent && bodyless && !retriedAnswer) {
          retriedAnswer = true;
          return true;
        }
        return false;
      }
      default -> throw new IllegalArgumentException(String.valueOf(outcome));
    }
  }

  /** Whether a 502/503 answer would be retried: then it is held rather than passed on. */
  public boolean wouldRetryAnswer(int status) {
    return (status == 502 || status == 503)
        && policy.retryIdempotentOn5xx()
        && idempotent
        && bodyless
        && !retriedAnswer;
  }
}
