package dev.replicapool.dataplane.policy;

import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.HashKey;
import dev.replicapool.dataplane.routing.PoolRouter;
import java.util.ArrayList;
import java.util.List;

/**
 * The tries of one request and the one place that decides whether another try follows, for every
 * client and member protocol (the table "Retry safety" of docs/DATAPLANE.md). A try that provably
 * sent nothing (connect failure, a stream the member refused or left unprocessed by its GOAWAY) may
 * go to another member, any request; one that may have reached a member only when the pool names
 * the request idempotent ({@link IdempotentRequests}) and it can be sent again byte for byte (no
 * body, or its body kept whole); a 502/503 answer once, for the same requests, when the pool allows
 * it; a hedge only for requests the pool's hedging covers. Every retry and hedge is paid from the
 * pool's retry budget and goes to a member not tried yet, below the pool's in-flight limit per
 * member. Plain code, no I/O.
 */
public final class Tries {
  /** How a try ended, as far as retrying is concerned. */
  public enum Outcome {
    /** Connection refused or not established in time: nothing was sent. */
    CONNECT_FAILURE,
    /**
     * The member says it did not process the request: HTTP/2 REFUSED_STREAM, or a GOAWAY whose last
     * stream id is below the request's stream.
     */
    UNPROCESSED,
    /** The connection or stream broke before any response byte: the member may have acted. */
    RESET_BEFORE_RESPONSE,
    /** No answer's head within the pool's per-try timeout. */
    TRY_TIMEOUT,
    /** The member answered 502 or 503. */
    UNAVAILABLE_ANSWER
  }

  /** Why {@link #next} found no member. */
  public enum NoMember {
    /** Every member that may take it was tried or is not routable. */
    NONE_LEFT,
    /** Members could take it but every one is at the pool's in-flight limit. */
    ALL_FULL
  }

  private final RetryPolicy policy;
  private final RequestPolicy requests;
  private final boolean idempotent;
  private boolean replayable;
  private final List<Endpoint> tried = new ArrayList<>(2);
  private List<Endpoint> excluded;
  private final long hashKey;
  private int connectRetries;
  private boolean retriedAnswer;
  private NoMember noMember;
  private int budgetDenials;

  /** A request without a hash key. */
  public Tries(RetryPolicy policy, RequestPolicy requests, boolean idempotent, boolean replayable) {
    this(policy, requests, idempotent, replayable, HashKey.NONE);
  }

  /**
   * A new request: it earns the pool's retry budget its share.
   *
   * @param idempotent the pool's {@link IdempotentRequests} say the members may receive it twice
   * @param replayable it can be sent again byte for byte: it has no body, or its caller keeps the
   *     body whole (and says {@link #bodyNotKept} once it cannot)
   * @param hashKey the request's key for a ConsistentHash pool ({@link HashKey}), every try
   */
  public Tries(
      RetryPolicy policy,
      RequestPolicy requests,
      boolean idempotent,
      boolean replayable,
      long hashKey) {
    this.policy = policy;
    this.requests = requests;
    this.idempotent = idempotent;
    this.replayable = replayable;
    this.hashKey = hashKey;
    requests.budget().deposit();
  }

  /**
   * The member for the next try (or hedge), from the pool's balancer among those not tried yet and
   * below the in-flight limit, counted in flight on it (release it when the try ends); null when
   * none may take it, and {@link #noMember()} says why.
   */
  public Endpoint next(PoolRouter router) {
    int limit = requests.maxPerMember();
    if (limit <= 0) {
      Endpoint e = router.pick(tried, hashKey);
      if (e != null) {
        tried.add(e);
        e.acquire();
      }
      noMember = e == null ? NoMember.NONE_LEFT : null;
      return e;
    }
    return nextBelowLimit(router, limit);
  }

  private Endpoint nextBelowLimit(PoolRouter router, int limit) {
    if (excluded == null) {
      excluded = new ArrayList<>(4);
    }
    excluded.clear();
    excluded.addAll(tried);
    boolean full = false;
    for (Endpoint e : router.endpoints()) {
      if (e.inflight() >= limit && !tried.contains(e)) {
        excluded.add(e);
        full = true;
      }
    }
    // Another event loop may take the last slot between the pick and the acquire: pick again.
    for (int attempt = 0; attempt < 4; attempt++) {
      Endpoint e = router.pick(excluded, hashKey);
      if (e == null) {
        break;
      }
      if (e.tryAcquire(limit)) {
        tried.add(e);
        noMember = null;
        return e;
      }
      excluded.add(e);
      full = true;
    }
    noMember = full ? NoMember.ALL_FULL : NoMember.NONE_LEFT;
    return null;
  }

  /** Why the last {@link #next} found no member; null when it found one. */
  public NoMember noMember() {
    return noMember;
  }

  /** Members this request already went to: a retry goes elsewhere. */
  public List<Endpoint> tried() {
    return tried;
  }

  /** Whether a try that ended so is followed by another (and counts it when it is). */
  public boolean shouldRetry(Outcome outcome) {
    boolean allowed =
        switch (outcome) {
          case CONNECT_FAILURE -> connectRetries < policy.connectFailureRetries();
          // Unprocessed, but what was sent of it is gone unless kept: any method, whole only.
          case UNPROCESSED -> replayable && connectRetries < policy.connectFailureRetries();
          case RESET_BEFORE_RESPONSE, TRY_TIMEOUT ->
              replayable && idempotent && connectRetries < policy.connectFailureRetries();
          case UNAVAILABLE_ANSWER -> answerRetryLeft();
        };
    if (!allowed || !pay()) {
      return false;
    }
    if (outcome == Outcome.UNAVAILABLE_ANSWER) {
      retriedAnswer = true;
    } else {
      connectRetries++;
    }
    return true;
  }

  /** Whether a 502/503 answer would be retried: then it is held rather than passed on. */
  public boolean wouldRetryAnswer(int status) {
    return (status == 502 || status == 503) && answerRetryLeft();
  }

  /** A 502/503 is retried once, when the pool allows it, for a request safe to send again. */
  private boolean answerRetryLeft() {
    return policy.retryIdempotentOn5xx() && idempotent && replayable && !retriedAnswer;
  }

  /**
   * The body outgrew what the caller keeps for a replay: from now on only a try that provably sent
   * nothing may be followed by another.
   */
  public void bodyNotKept() {
    replayable = false;
  }

  /**
   * Whether this request is one the pool hedges (the delay is the caller's to keep): the pool
   * hedges, and the request is idempotent and can be sent again as it is.
   */
  public boolean hedgeable() {
    return requests.hedging() != null && idempotent && replayable;
  }

  /** Whether a hedge due now may go out: paid from the retry budget. */
  public boolean mayHedge() {
    return pay();
  }

  /** Retries and hedges this request did not get because the pool's budget was spent. */
  public int budgetDenials() {
    return budgetDenials;
  }

  private boolean pay() {
    if (requests.budget().tryWithdraw()) {
      return true;
    }
    budgetDenials++;
    return false;
  }
}
