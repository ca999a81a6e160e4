package dev.replicapool.dataplane.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Queue order, room and timeouts on a fake clock. */
class AdmissionQueueTest {
  final FakeClock clock = new FakeClock();
  final List<String> woken = new ArrayList<>();

  AdmissionQueue.Waiter waiter(String name) {
    return () -> woken.add(name);
  }

  @Test
  void freedSlotsGoToWaitersInArrivalOrder() {
    AdmissionQueue q = new AdmissionQueue(10, 1_000_000_000L, clock::getAsLong);
    q.offer(waiter("a"));
    q.offer(waiter("b"));
    q.offer(waiter("c"));
    assertThat(q.depth()).isEqualTo(3);
    q.slotFreed();
    q.slotFreed();
    assertThat(woken).containsExactly("a", "b");
    assertThat(q.depth()).isEqualTo(1);
  }

  @Test
  void aFullQueueRefusesTheNextRequest() {
    AdmissionQueue q = new AdmissionQueue(2, 1_000_000_000L, clock::getAsLong);
    assertThat(q.offer(waiter("a"))).isTrue();
    assertThat(q.offer(waiter("b"))).isTrue();
    assertThat(q.offer(waiter("c"))).isFalse();
    assertThat(new AdmissionQueue(0, 1, clock::getAsLong).offer(waiter("x"))).isFalse();
  }

  @Test
  void waitersPastTheirTimeAreSkippedNotWoken() {
    AdmissionQueue q = new AdmissionQueue(10, 100_000_000L, clock::getAsLong);
    q.offer(waiter("old"));
    clock.advanceMillis(60);
    q.offer(waiter("new"));
    clock.advanceMillis(50); // "old" waited 110 ms, "new" 50 ms
    q.slotFreed();
    assertThat(woken).containsExactly("new");
    assertThat(q.depth()).isZero();
  }

  @Test
  void aWaiterThatLostTheRaceKeepsItsPlaceInFront() {
    AdmissionQueue q = new AdmissionQueue(10, 1_000_000_000L, clock::getAsLong);
    AdmissionQueue.Waiter a = waiter("a");
    q.offer(a);
    long deadline = q.deadlineFromNow();
    q.offer(waiter("b"));
    q.slotFreed(); // a woken, finds the slot taken
    q.requeueFirst(a, deadline);
    q.slotFreed();
    assertThat(woken).containsExactly("a", "a");
  }

  @Test
  void aRemovedWaiterIsNotWokenAndBusyFollowsTheQueue() {
    AdmissionQueue q = new AdmissionQueue(10, 1_000_000_000L, clock::getAsLong);
    AdmissionQueue.Waiter a = waiter("a");
    assertThat(q.busy()).isFalse();
    q.offer(a);
    assertThat(q.busy()).isTrue();
    assertThat(q.remove(a)).isTrue();
    assertThat(q.remove(a)).isFalse();
    q.slotFreed();
    assertThat(woken).isEmpty();
    assertThat(q.busy()).isFalse();
  }
}
