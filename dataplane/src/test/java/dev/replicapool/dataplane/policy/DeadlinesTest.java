package dev.replicapool.dataplane.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.policy.Deadlines.Due;
import org.junit.jupiter.api.Test;

/** What falls due when, event by event, in milliseconds from the request's arrival. */
class DeadlinesTest {
  static final long MS = 1_000_000L;

  @Test
  void nothingIsDueWithoutLimits() {
    Deadlines d = new Deadlines(0, 0, 0, 0);
    d.trySent(0);
    assertThat(d.due(3_600_000 * MS)).isEqualTo(Due.NONE);
    assertThat(d.nextCheck()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void theRequestDeadlineCountsFromArrivalAndWinsOverEverything() {
    Deadlines d = new Deadlines(0, 100 * MS, 50 * MS, 30 * MS);
    d.trySent(80 * MS);
    assertThat(d.nextCheck()).isEqualTo(100 * MS);
    assertThat(d.due(99 * MS)).isEqualTo(Due.NONE);
    assertThat(d.due(100 * MS)).isEqualTo(Due.REQUEST);
  }

  @Test
  void thePerTryTimeoutCountsFromTheTryInFrontUntilItsHead() {
    Deadlines d = new Deadlines(0, 0, 50 * MS, 0);
    d.trySent(10 * MS);
    assertThat(d.due(59 * MS)).isEqualTo(Due.NONE);
    assertThat(d.due(60 * MS)).isEqualTo(Due.TRY);
    d.trySent(60 * MS); // the retry
    assertThat(d.nextCheck()).isEqualTo(110 * MS);
    d.headReceived(70 * MS);
    assertThat(d.due(500 * MS)).as("an answer is coming: no per-try limit").isEqualTo(Due.NONE);
  }

  @Test
  void idleCountsFromTheLastActivityAndStopsWhenNoTryIsOut() {
    Deadlines d = new Deadlines(0, 0, 0, 30 * MS);
    d.trySent(0);
    d.activity(20 * MS);
    assertThat(d.due(49 * MS)).isEqualTo(Due.NONE);
    assertThat(d.nextCheck()).isEqualTo(50 * MS);
    assertThat(d.due(50 * MS)).isEqualTo(Due.IDLE);
    d.idle();
    assertThat(d.due(500 * MS)).isEqualTo(Due.NONE);
  }

  @Test
  void hedgesFollowOneDelayApartUntilTheirNumberIsReached() {
    Deadlines d = new Deadlines(0, 0, 0, 0);
    d.hedging(2, 20 * MS);
    d.trySent(0);
    assertThat(d.nextCheck()).isEqualTo(20 * MS);
    assertThat(d.due(19 * MS)).isEqualTo(Due.NONE);
    assertThat(d.due(20 * MS)).isEqualTo(Due.HEDGE);
    d.hedgeSent(20 * MS);
    assertThat(d.due(39 * MS)).isEqualTo(Due.NONE);
    assertThat(d.due(40 * MS)).isEqualTo(Due.HEDGE);
    d.hedgeSent(40 * MS);
    assertThat(d.hedgesLeft()).isFalse();
    assertThat(d.due(1_000 * MS)).isEqualTo(Due.NONE);
  }

  @Test
  void aHeadStopsHedging() {
    Deadlines d = new Deadlines(0, 0, 0, 0);
    d.hedging(1, 20 * MS);
    d.trySent(0);
    d.headReceived(5 * MS);
    assertThat(d.due(25 * MS)).isEqualTo(Due.NONE);
    assertThat(d.hedgesLeft()).isFalse();
  }

  @Test
  void stoppedHedgingSendsNoMore() {
    Deadlines d = new Deadlines(0, 0, 0, 0);
    d.hedging(3, 20 * MS);
    d.trySent(0);
    d.stopHedging();
    assertThat(d.due(25 * MS)).isEqualTo(Due.NONE);
  }

  @Test
  void whenTheFrontTryIsGivenUpTheOldestHedgeIsWatched() {
    Deadlines d = new Deadlines(0, 0, 50 * MS, 0);
    d.hedging(1, 20 * MS);
    d.trySent(0);
    d.hedgeSent(20 * MS);
    assertThat(d.due(50 * MS)).isEqualTo(Due.TRY);
    d.frontReplaced(20 * MS);
    assertThat(d.due(69 * MS)).isEqualTo(Due.NONE);
    assertThat(d.due(70 * MS)).isEqualTo(Due.TRY);
  }

  @Test
  void aShorterCallDeadlineWinsALongerOneDoesNot() {
    Deadlines d = new Deadlines(0, 100 * MS, 0, 0);
    d.shortenTo(40 * MS);
    assertThat(d.due(40 * MS)).isEqualTo(Due.REQUEST);
    Deadlines e = new Deadlines(0, 100 * MS, 0, 0);
    e.shortenTo(400 * MS);
    assertThat(e.due(100 * MS)).isEqualTo(Due.REQUEST);
  }

  @Test
  void urgencyOrderIsRequestThenTryThenIdleThenHedge() {
    Deadlines d = new Deadlines(0, 100 * MS, 50 * MS, 30 * MS);
    d.hedging(1, 10 * MS);
    d.trySent(0);
    assertThat(d.due(10 * MS)).isEqualTo(Due.HEDGE);
    assertThat(d.due(30 * MS)).isEqualTo(Due.IDLE);
    assertThat(d.due(50 * MS)).isEqualTo(Due.TRY);
    assertThat(d.due(100 * MS)).isEqualTo(Due.REQUEST);
  }
}
