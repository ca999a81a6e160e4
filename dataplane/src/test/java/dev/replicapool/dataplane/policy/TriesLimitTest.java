package dev.replicapool.dataplane.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.PoolRouter;
import dev.replicapool.dataplane.routing.TestRouters;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The in-flight limit per member as tries see it. */
class TriesLimitTest {
  final FakeClock clock = new FakeClock();

  PoolRouter router(int members) {
    return TestRouters.roundRobin(members, clock);
  }

  RequestPolicy limited(int max) {
    RequestPolicy d = RequestPolicy.defaults(30_000_000_000L, clock);
    return new RequestPolicy(
        0,
        0,
        d.idleNanos(),
        null,
        d.budget(),
        d.latencies(),
        max,
        new AdmissionQueue(10, 1_000_000_000L, clock),
        IdempotentRequests.DEFAULT);
  }

  Tries request(RequestPolicy p) {
    return new Tries(RetryPolicy.DEFAULT, p, true, true);
  }

  @Test
  void noMemberTakesMoreThanTheLimitAndTheNextRequestFindsAllFull() {
    PoolRouter r = router(2);
    RequestPolicy p = limited(3);
    List<Endpoint> taken = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Endpoint e = request(p).next(r);
      assertThat(e).isNotNull();
      taken.add(e);
    }
    assertThat(r.endpoints()).allSatisfy(e -> assertThat(e.inflight()).isEqualTo(3));
    Tries seventh = request(p);
    assertThat(seventh.next(r)).isNull();
    assertThat(seventh.noMember()).isEqualTo(Tries.NoMember.ALL_FULL);
    p.released(taken.get(0));
    assertThat(seventh.next(r)).isSameAs(taken.get(0));
  }

  @Test
  void aRetryOnlyGoesToAMemberNotTriedThatHasRoom() {
    PoolRouter r = router(2);
    RequestPolicy p = limited(1);
    Tries first = request(p);
    Endpoint a = first.next(r);
    Tries other = request(p);
    Endpoint b = other.next(r);
    assertThat(b).isNotSameAs(a);
    p.released(a);
    assertThat(first.next(r)).as("a was tried, b is full").isNull();
    assertThat(first.noMember()).isEqualTo(Tries.NoMember.ALL_FULL);
    p.released(b);
    assertThat(first.next(r)).isSameAs(b);
  }

  @Test
  void withNoRoutableMemberItIsNoneLeftNotAllFull() {
    PoolRouter r = router(0);
    Tries t = request(limited(1));
    assertThat(t.next(r)).isNull();
    assertThat(t.noMember()).isEqualTo(Tries.NoMember.NONE_LEFT);
  }

  @Test
  void aFreedSlotWakesTheLongestWaitingRequest() {
    PoolRouter r = router(1);
    RequestPolicy p = limited(1);
    Endpoint e = request(p).next(r);
    List<String> woken = new ArrayList<>();
    p.queue().offer(() -> woken.add("first"));
    p.queue().offer(() -> woken.add("second"));
    p.released(e);
    assertThat(woken).containsExactly("first");
    assertThat(e.inflight()).isZero();
  }

  @Test
  void withoutALimitEveryPickSucceeds() {
    PoolRouter r = router(1);
    RequestPolicy p = RequestPolicy.defaults(1, clock);
    for (int i = 0; i < 100; i++) {
      assertThat(request(p).next(r)).isNotNull();
    }
    assertThat(r.endpoints().get(0).inflight()).isEqualTo(100);
  }
}
