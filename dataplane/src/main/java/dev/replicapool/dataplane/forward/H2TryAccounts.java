package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.exchange.TryCourse;
import dev.replicapool.dataplane.proxy.ProxyObserver;

/**
 * What the end of an HTTP/2 stream's try that does not carry the answer costs: its member stream
 * reset (CANCEL), its member's in-flight slot, the balancer's failure or slower sample, the metrics
 * ({@code replicapool_hedges_total} and the try's attempt). Its {@link TryCourse} decides when.
 */
final class H2TryAccounts implements TryCourse.Accounts<H2Try> {
  private final PoolRuntime pool;
  private final ProxyObserver observer;

  H2TryAccounts(PoolRuntime pool, ProxyObserver observer) {
    this.pool = pool;
    this.observer = observer;
  }

  @Override
  public void hedge(String outcome) {
    observer.hedge(pool.name(), outcome);
  }

  @Override
  public void ended(H2Try t, TryCourse.End end, boolean inFront, String label, long now) {
    t.cancel();
    long nanos = t.end();
    switch (end) {
      case FAILED -> t.countFailure(label);
      case SLOWER -> {
        pool.router().slowerThan(t.member(), nanos);
        // Its time so far is a sample too, or the percentile the hedges wait for would only sink.
        pool.requests().latencies().record(nanos);
        observer.attempt(pool.name(), t.member(), label, nanos);
      }
      case CANCELLED -> observer.attempt(pool.name(), t.member(), label, nanos);
    }
  }
}
