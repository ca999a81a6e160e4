package dev.replicapool.operator.membership;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.operator.membership.HandOver.Phase;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** One test per transition of a leaving member: KEPT, and each way to REMOVED. */
class HandOverTest {
  static final long CAP = 2_000;
  final AtomicLong now = new AtomicLong(1_000_000);
  final HandOver handOver =
      new HandOver(
          new Clock() {
            @Override
            public long millis() {
              return now.get();
            }

            @Override
            public Instant instant() {
              return Instant.ofEpochMilli(now.get());
            }

            @Override
            public java.time.ZoneId getZone() {
              return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
              return this;
            }
          });

  @Test
  void keptWhileFewerNewMembersAreRoutableThanThePoolHadBefore() {
    handOver.left("a:1", "removed from spec", 2);
    handOver.left("b:1", "removed from spec", 2);

    HandOver.Decision d = handOver.decide("a:1", true, 1, 2, CAP);

    assertThat(d.phase()).isEqualTo(Phase.KEPT);
    assertThat(d.reason())
        .isEqualTo(
            "removed from spec; kept until 2 new members are routable (1 now), at most 2000ms");
    assertThat(handOver.addresses()).containsExactly("a:1", "b:1");
  }

  @Test
  void removedOnceAsManyNewMembersAreRoutableAsBefore() {
    handOver.left("a:1", "removed from spec", 2);
    now.addAndGet(300);

    HandOver.Decision d = handOver.decide("a:1", true, 2, 2, CAP);

    assertThat(d.phase()).isEqualTo(Phase.REMOVED);
    assertThat(d.reason()).isEqualTo("removed from spec; 2 routable members take over after 300ms");
    assertThat(handOver.isLeaving("a:1")).isFalse();
  }

  @Test
  void aSmallerNewMembershipNeedsOnlyAsManyAsItHas() {
    handOver.left("a:1", "no longer selected", 3);

    assertThat(handOver.decide("a:1", true, 0, 1, CAP).phase()).isEqualTo(Phase.KEPT);
    assertThat(handOver.decide("a:1", true, 1, 1, CAP).phase()).isEqualTo(Phase.REMOVED);
  }

  @Test
  void anEmptiedPoolLetsItsMembersGoAtOnce() {
    handOver.left("a:1", "removed from spec", 1);

    assertThat(handOver.decide("a:1", true, 0, 0, CAP).phase()).isEqualTo(Phase.REMOVED);
  }

  @Test
  void removedAtOnceWhenItStopsPassingItsProbes() {
    handOver.left("a:1", "removed from spec", 2);

    HandOver.Decision d = handOver.decide("a:1", false, 0, 2, CAP);

    assertThat(d.phase()).isEqualTo(Phase.REMOVED);
    assertThat(d.reason()).isEqualTo("removed from spec; stopped passing its probes while kept");
  }

  @Test
  void removedAtTheCapWhenTheNewMembersNeverComeUp() {
    handOver.left("a:1", "removed from spec", 2);
    now.addAndGet(CAP - 1);
    assertThat(handOver.decide("a:1", true, 0, 2, CAP).phase()).isEqualTo(Phase.KEPT);

    now.addAndGet(1);
    HandOver.Decision d = handOver.decide("a:1", true, 0, 2, CAP);

    assertThat(d.phase()).isEqualTo(Phase.REMOVED);
    assertThat(d.reason())
        .isEqualTo(
            "removed from spec; kept 2000ms, the most a leaving member is kept, with 0 of 2 new"
                + " members routable");
  }

  @Test
  void aMemberBackInTheMembershipIsNoLongerLeaving() {
    handOver.left("a:1", "removed from spec", 2);

    handOver.returned("a:1");

    assertThat(handOver.isLeaving("a:1")).isFalse();
    assertThat(handOver.addresses()).isEmpty();
  }

  @Test
  void leavingTwiceKeepsTheFirstTimeItLeft() {
    handOver.left("a:1", "removed from spec", 2);
    now.addAndGet(CAP);
    handOver.left("a:1", "removed from spec", 5);

    assertThat(handOver.decide("a:1", true, 0, 2, CAP).phase()).isEqualTo(Phase.REMOVED);
  }

  @Test
  void removedAtOnceWhenItsPodStops() {
    handOver.left("a:1", "no longer selected", 2);

    HandOver.Decision d = handOver.stopped("a:1");

    assertThat(d.phase()).isEqualTo(Phase.REMOVED);
    assertThat(d.reason())
        .isEqualTo("no longer selected; its Pod is gone, terminating or not Ready");
    assertThat(handOver.isLeaving("a:1")).isFalse();
  }
}
