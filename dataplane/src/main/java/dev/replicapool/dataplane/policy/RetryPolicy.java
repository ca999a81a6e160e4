package dev.replicapool.dataplane.policy;

import dev.replicapool.api.v1alpha1.Retry;

/** A pool's retry settings with the CRD's defaults for anything missing. */
public record RetryPolicy(int connectFailureRetries, boolean retryIdempotentOn5xx) {
  public static final RetryPolicy DEFAULT = from(null);

  public static RetryPolicy from(Retry r) {
    Retry d = new Retry();
    if (r == null) {
      r = d;
    }
    int retries =
        r.connectFailureRetries != null ? r.connectFailureRetries : d.connectFailureRetries;
    boolean on5xx =
        r.retryIdempotentOn5xx != null ? r.retryIdempotentOn5xx : d.retryIdempotentOn5xx;
    return new RetryPolicy(Math.max(0, Math.min(5, retries)), on5xx);
  }
}
