package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.RequestQueue;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.dataplane.policy.RequestPolicy;
import org.junit.jupiter.api.Test;

/** The data plane's fallbacks for absent fields are the schema's defaults (issue #28). */
class RequestPolicyDefaultsTest {
  private static RequestPolicy policy(PoolSnapshot s) {
    return RequestPolicy.from(s, null, 30_000_000_000L, 100, System::nanoTime);
  }

  @Test
  void aQueueGivenOnlyItsTimeoutHoldsTheDefaultNumberOfRequests() {
    PoolSnapshot s = SnapshotBuilder.pool("q").port(18080).limit(8, 0, 3000).version(1);
    s.queue().maxPending = null;
    RequestPolicy p = policy(s);
    assertThat(p.queue()).isNotNull();
    assertThat(p.queue().maxPending()).isEqualTo(RequestQueue.DEFAULT_MAX_PENDING).isEqualTo(1024);
    assertThat(p.queue().timeoutNanos()).isEqualTo(3_000_000_000L);
  }

  @Test
  void anEmptyQueueIsTheSchemaDefaultOne() {
    RequestQueue fromJava = new RequestQueue();
    assertThat(fromJava.maxPending).isEqualTo(1024);
    assertThat(fromJava.timeoutMillis).isEqualTo(1000L);
  }

  @Test
  void timeoutsOfZeroAreNoLimitLikeAbsentOnes() {
    RequestPolicy zero =
        policy(SnapshotBuilder.pool("t").port(18081).timeouts(0L, 0L, null).version(1));
    RequestPolicy absent = policy(SnapshotBuilder.pool("t").port(18081).version(1));
    assertThat(zero.requestNanos()).isZero().isEqualTo(absent.requestNanos());
    assertThat(zero.perTryNanos()).isZero().isEqualTo(absent.perTryNanos());
    assertThat(zero.idleNanos()).isEqualTo(absent.idleNanos()).isEqualTo(30_000_000_000L);
  }
}
