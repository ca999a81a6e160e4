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
  void aHedgeWaitsForTheWholeRequestAndItsDelayCountsFromTheBodysEnd() {
    Deadlines d = new Deadlines(0, 0, 0, 0);
    d.requestOwed(0);
    d.hedging(1, 20 * MS);
    d.trySent(0);
    d.clientSent(10 * MS, false);
    assertThat(d.due(30 * MS)).as("the body is still coming").isEqualTo(Due.NONE);
    assertThat(d.nextCheck()).as("nothing to look at until it is in").isEqualTo(Long.MAX_VALUE);
    d.clientSent(50 * MS, true);
    assertThat(d.nextCheck()).isEqualTo(70 * MS);
    assertThat(d.due(69 * MS)).as("the member has had the request for 19 ms").isEqualTo(Due.NONE);
    assertThat(d.due(70 * MS)).isEqualTo(Due.HEDGE);
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

  @Test
  void whileTheClientTakesNothingTheMemberIsNotIdleButTheClientStalls() {
    Deadlines d = new Deadlines(0, 0, 0, 30 * MS);
    d.trySent(0);
    d.headReceived(5 * MS);
    d.clientBlocked(10 * MS);
    assertThat(d.nextCheck())
        .as("counted from the block, not the member's last bytes")
        .isEqualTo(40 * MS);
    assertThat(d.due(39 * MS))
        .as("the member is not read: its silence is not its own")
        .isEqualTo(Due.NONE);
    assertThat(d.due(40 * MS)).isEqualTo(Due.CLIENT_STALLED);
  }

  @Test
  void aClientThatTakesMoreGivesTheMemberAFreshIdleClock() {
    Deadlines d = new Deadlines(0, 0, 0, 30 * MS);
    d.trySent(0);
    d.headReceived(0);
    d.clientBlocked(10 * MS);
    d.clientBlocked(20 * MS); // still blocked: the first moment counts
    d.clientUnblocked(35 * MS);
    assertThat(d.due(40 * MS)).isEqualTo(Due.NONE);
    assertThat(d.nextCheck()).isEqualTo(65 * MS);
    assertThat(d.due(65 * MS)).isEqualTo(Due.IDLE);
    d.clientUnblocked(70 * MS); // not blocked: nothing moves
    assertThat(d.due(65 * MS)).isEqualTo(Due.IDLE);
  }

  @Test
  void theRequestDeadlinePassingWhileTheClientHoldsTheAnswerIsTheClientsStall() {
    Deadlines d = new Deadlines(0, 100 * MS, 0, 0);
    d.trySent(0);
    d.headReceived(10 * MS);
    d.clientBlocked(90 * MS);
    assertThat(d.due(100 * MS)).isEqualTo(Due.CLIENT_STALLED);
    d.clientUnblocked(101 * MS);
    assertThat(d.due(101 * MS)).isEqualTo(Due.REQUEST);
  }

  @Test
  void noTryOutForgetsTheBlock() {
    Deadlines d = new Deadlines(0, 0, 0, 30 * MS);
    d.trySent(0);
    d.clientBlocked(10 * MS);
    d.idle();
    assertThat(d.due(500 * MS)).isEqualTo(Due.NONE);
    assertThat(d.nextCheck()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void aMemberWaitingForTheRestOfTheBodyIsNotIdleTheClientIsSilent() {
    Deadlines d = new Deadlines(0, 0, 0, 30 * MS);
    d.requestOwed(0);
    d.trySent(0);
    d.clientSent(10 * MS, false);
    assertThat(d.nextCheck()).isEqualTo(40 * MS);
    assertThat(d.due(39 * MS)).isEqualTo(Due.NONE);
    assertThat(d.due(40 * MS)).isEqualTo(Due.CLIENT_SILENT);
  }

  @Test
  void anUploadLongerThanTheIdleTimeoutIsNotIdleWhileItsBytesCome() {
    Deadlines d = new Deadlines(0, 0, 0, 30 * MS);
    d.requestOwed(0);
    d.trySent(0);
    for (long t = 20; t <= 200; t += 20) {
      d.clientSent(t * MS, t == 200);
      assertThat(d.due((t + 19) * MS)).as("at %d ms", t + 19).isEqualTo(Due.NONE);
    }
    assertThat(d.due(229 * MS)).isEqualTo(Due.NONE);
    assertThat(d.due(230 * MS))
        .as("the whole request is there: the member's silence is its own")
        .isEqualTo(Due.IDLE);
  }

  @Test
  void aClientHeldBackByAMemberThatTakesNothingIsNotSilentTheMemberIs() {
    Deadlines d = new Deadlines(0, 0, 0, 30 * MS);
    d.requestOwed(0);
    d.trySent(0);
    d.clientSent(10 * MS, false);
    d.clientReadsPaused(true, 10 * MS);
    assertThat(d.due(40 * MS)).isEqualTo(Due.IDLE);
    d.clientReadsPaused(false, 45 * MS);
    assertThat(d.due(45 * MS)).as("from when it may send again").isEqualTo(Due.NONE);
    assertThat(d.due(75 * MS)).isEqualTo(Due.CLIENT_SILENT);
  }
}
