package dev.replicapool.dataplane.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.exchange.TryCourse.AfterLoss;
import dev.replicapool.dataplane.exchange.TryCourse.End;
import dev.replicapool.dataplane.exchange.TryCourse.Phase;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.HedgePolicy;
import dev.replicapool.dataplane.policy.IdempotentRequests;
import dev.replicapool.dataplane.policy.LatencyWindow;
import dev.replicapool.dataplane.policy.RequestPolicy;
import dev.replicapool.dataplane.policy.RetryBudgetWindow;
import dev.replicapool.dataplane.policy.RetryPolicy;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.routing.Endpoint;
import dev.replicapool.dataplane.routing.PoolRouter;
import dev.replicapool.dataplane.routing.TestRouters;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The course of one request's tries, event by event, with fake tries, a real pool router and the
 * real {@link Tries} and {@link Deadlines} on a clock the test moves: what each event does to the
 * phase, which try is in front, what the accounts are told and what a lost try means.
 */
class TryCourseTest {
  static final long MS = 1_000_000L;

  long now = 1_000 * MS;
  final List<String> accounts = new ArrayList<>();

  /** The tries and the pool of each course made. */
  record Made(Tries tries, PoolRouter router) {}

  final Map<TryCourse<FakeTry>, Made> made = new IdentityHashMap<>();

  /** How many members the pool of the next course has. */
  int members = 3;

  record FakeTry(String name, Endpoint member, long sentAt) implements TryCourse.Attempt {}

  /** A pool of {@code n} healthy members, balanced round-robin. */
  PoolRouter router(int n) {
    return TestRouters.roundRobin(n, () -> now);
  }

  final TryCourse.Accounts<FakeTry> accountsLog =
      new TryCourse.Accounts<>() {
        @Override
        public void hedge(String outcome) {
          accounts.add("hedge " + outcome);
        }

        @Override
        public void ended(FakeTry t, End end, boolean inFront, String label, long at) {
          // No test here ends a hedge after it won: a hedge ends as one, the others in front.
          assertThat(inFront).as(t.name() + " in front").isEqualTo(!t.name().startsWith("hedge"));
          accounts.add(t.name() + " " + end + " " + label);
        }
      };

  RequestPolicy requests(boolean hedging, int budgetPercent, int budgetMinPerSecond) {
    RequestPolicy d = RequestPolicy.defaults(30_000 * MS, () -> now);
    return new RequestPolicy(
        0,
        100 * MS,
        d.idleNanos(),
        hedging ? new HedgePolicy(20 * MS, 0, 20 * MS, 2) : null,
        new RetryBudgetWindow(budgetPercent, budgetMinPerSecond, () -> now),
        new LatencyWindow(() -> now),
        0,
        null,
        IdempotentRequests.DEFAULT);
  }

  Deadlines deadlines;
  Tries tries;

  TryCourse<FakeTry> course(boolean hedging, boolean idempotent, int retries) {
    return course(requests(hedging, 20, 10), idempotent, retries);
  }

  TryCourse<FakeTry> course(RequestPolicy rp, boolean idempotent, int retries) {
    return course(rp, idempotent, new RetryPolicy(retries, false));
  }

  TryCourse<FakeTry> course(RequestPolicy rp, boolean idempotent, RetryPolicy retry) {
    tries = new Tries(retry, rp, idempotent, true);
    deadlines = new Deadlines(now, 0, rp.perTryNanos(), 0);
    if (tries.hedgeable()) {
      deadlines.hedging(2, 20 * MS);
    }
    PoolRouter router = router(members);
    TryCourse<FakeTry> c = new TryCourse<>(tries, deadlines, router, accountsLog);
    made.put(c, new Made(tries, router));
    return c;
  }

  FakeTry first(TryCourse<FakeTry> c) {
    Made m = made.get(c);
    FakeTry t = new FakeTry("first", m.tries().next(m.router()), now);
    c.sent(t);
    return t;
  }

  @Test
  void aRequestWaitsUntilItsFirstTryGoesOutThenTriesUntilAnAnswerStarts() {
    TryCourse<FakeTry> c = course(false, true, 1);
    assertThat(c.phase()).isEqualTo(Phase.WAITING);
    assertThat(c.front()).isNull();
    FakeTry t = first(c);
    assertThat(c.phase()).isEqualTo(Phase.TRYING);
    assertThat(c.front()).isSameAs(t);
    assertThat(c.carries(t)).isTrue();
    now += 30 * MS;
    assertThat(c.answered(t, now)).as("it was in front already").isNull();
    assertThat(c.phase()).isEqualTo(Phase.ANSWERING);
    assertThat(c.carries(t)).isTrue();
    assertThat(accounts).isEmpty();
    assertThat(c.endFront()).isSameAs(t);
    c.finish(now);
    assertThat(c.phase()).isEqualTo(Phase.DONE);
    assertThat(c.carries(t)).isFalse();
  }

  @Test
  void thePerTryTimeoutWatchesTheTryInFrontFromWhenItWasSent() {
    TryCourse<FakeTry> c = course(false, true, 1);
    first(c);
    now += 99 * MS;
    assertThat(deadlines.due(now)).isEqualTo(Deadlines.Due.NONE);
    now += 1 * MS;
    assertThat(deadlines.due(now)).isEqualTo(Deadlines.Due.TRY);
  }

  @Test
  void aTryThatSentNothingIsRetriedForAnyRequest() {
    TryCourse<FakeTry> c = course(false, false, 1);
    FakeTry t = first(c);
    assertThat(c.lost(t, "connect_failure", Tries.Outcome.CONNECT_FAILURE, false, now))
        .isEqualTo(AfterLoss.RETRY);
    assertThat(c.phase()).isEqualTo(Phase.WAITING);
    assertThat(c.front()).isNull();
    assertThat(c.carries(t)).as("a lost try counts no more").isFalse();
    assertThat(accounts).containsExactly("first FAILED connect_failure");
  }

  @Test
  void aRetryIsNeitherDecidedNorPaidForWhenEveryMemberWasTried() {
    members = 2;
    TryCourse<FakeTry> c = course(false, false, 3);
    Made m = made.get(c);
    FakeTry t = first(c);
    assertThat(c.lost(t, "connect_failure", Tries.Outcome.CONNECT_FAILURE, false, now))
        .isEqualTo(AfterLoss.RETRY);
    FakeTry r = new FakeTry("retry", m.tries().next(m.router()), now);
    c.sent(r);
    assertThat(c.lost(r, "connect_failure", Tries.Outcome.CONNECT_FAILURE, false, now))
        .as("retries are left, members are not")
        .isEqualTo(AfterLoss.LAST);
    assertThat(tries.shouldRetry(Tries.Outcome.CONNECT_FAILURE))
        .as("the second retry was not spent on nothing")
        .isTrue();
  }

  @Test
  void aRequestThatMayHaveReachedItsMemberIsSentAgainOnlyWhenSafeAndWhole() {
    TryCourse<FakeTry> notIdempotent = course(false, false, 1);
    FakeTry a = first(notIdempotent);
    assertThat(notIdempotent.lost(a, "reset", Tries.Outcome.RESET_BEFORE_RESPONSE, true, now))
        .as("a POST the member may have acted on")
        .isEqualTo(AfterLoss.LAST);

    TryCourse<FakeTry> notKept = course(false, true, 1);
    FakeTry b = first(notKept);
    assertThat(notKept.lost(b, "reset", Tries.Outcome.RESET_BEFORE_RESPONSE, false, now))
        .as("its body is no longer whole")
        .isEqualTo(AfterLoss.LAST);
    assertThat(notKept.lost(b, "reset", Tries.Outcome.UNPROCESSED, false, now))
        .as("already lost")
        .isEqualTo(AfterLoss.NOT_OUT);

    TryCourse<FakeTry> safe = course(false, true, 1);
    FakeTry d = first(safe);
    assertThat(safe.lost(d, "reset", Tries.Outcome.RESET_BEFORE_RESPONSE, true, now))
        .isEqualTo(AfterLoss.RETRY);
    FakeTry e = new FakeTry("retry", null, now);
    safe.sent(e);
    assertThat(safe.lost(e, "reset", Tries.Outcome.RESET_BEFORE_RESPONSE, true, now))
        .as("one retry allowed")
        .isEqualTo(AfterLoss.LAST);
  }

  @Test
  void anUnprocessedTryIsRetriedWhenTheRequestIsWholeEvenIfNotIdempotent() {
    TryCourse<FakeTry> c = course(false, false, 1);
    FakeTry t = first(c);
    assertThat(c.lost(t, "reset", Tries.Outcome.UNPROCESSED, true, now)).isEqualTo(AfterLoss.RETRY);
    TryCourse<FakeTry> partial = course(false, false, 1);
    FakeTry u = first(partial);
    assertThat(partial.lost(u, "reset", Tries.Outcome.UNPROCESSED, false, now))
        .as("part of its body was sent and not kept")
        .isEqualTo(AfterLoss.LAST);
  }

  @Test
  void aHedgeGoesOutBesideTheWaitingTryToAMemberNotTriedYet() {
    TryCourse<FakeTry> c = course(true, true, 1);
    FakeTry t = first(c);
    now += 20 * MS;
    assertThat(deadlines.due(now)).isEqualTo(Deadlines.Due.HEDGE);
    long at = now;
    FakeTry h = c.hedgeDue(now, e -> new FakeTry("hedge 1", e, at));
    assertThat(h.member()).as("a member not tried yet").isNotEqualTo(t.member());
    assertThat(c.carries(h)).isTrue();
    assertThat(c.watched()).as("the one in front is watched").isSameAs(t);
    assertThat(accounts).containsExactly("hedge sent");
    assertThat(deadlines.due(now))
        .as("the next hedge waits its delay")
        .isEqualTo(Deadlines.Due.NONE);
  }

  int hedgesMade;

  /** Hedges are named in the order they went out: hedge 1, hedge 2. */
  FakeTry hedge(TryCourse<FakeTry> c) {
    long at = now;
    String name = "hedge " + ++hedgesMade;
    return c.hedgeDue(now, e -> new FakeTry(name, e, at));
  }

  @Test
  void theFirstHeadWinsAndEveryOtherTryLosesTheOneInFrontAsTheSlowerOne() {
    TryCourse<FakeTry> c = course(true, true, 1);
    FakeTry t = first(c);
    now += 20 * MS;
    FakeTry h1 = hedge(c);
    now += 20 * MS;
    FakeTry h2 = hedge(c);
    accounts.clear();
    now += 5 * MS;
    assertThat(c.answered(h1, now)).isSameAs(t);
    assertThat(c.front()).isSameAs(h1);
    assertThat(c.phase()).isEqualTo(Phase.ANSWERING);
    assertThat(accounts)
        .containsExactly(
            "first SLOWER cancelled", "hedge won", "hedge 2 CANCELLED cancelled", "hedge lost");
    assertThat(c.carries(t)).isFalse();
    assertThat(c.carries(h2)).isFalse();
    assertThat(c.carries(h1)).isTrue();
    assertThat(hedge(c)).as("no hedge once an answer started").isNull();
  }

  @Test
  void aFailedHedgeLeavesTheWaitingTryInFront() {
    TryCourse<FakeTry> c = course(true, true, 1);
    FakeTry t = first(c);
    now += 20 * MS;
    FakeTry h = hedge(c);
    accounts.clear();
    assertThat(c.lost(h, "connect_failure", Tries.Outcome.CONNECT_FAILURE, true, now))
        .isEqualTo(AfterLoss.OTHER_TRY_OUT);
    assertThat(c.front()).isSameAs(t);
    assertThat(c.phase()).isEqualTo(Phase.TRYING);
    assertThat(accounts).containsExactly("hedge failed", "hedge 1 FAILED connect_failure");
  }

  @Test
  void whenTheTryInFrontFailsTheOldestHedgeIsWatchedFromWhenItWasSent() {
    TryCourse<FakeTry> c = course(true, true, 1);
    FakeTry t = first(c);
    now += 20 * MS;
    FakeTry h = hedge(c);
    now += 50 * MS;
    assertThat(c.lost(t, "reset", Tries.Outcome.RESET_BEFORE_RESPONSE, true, now))
        .isEqualTo(AfterLoss.OTHER_TRY_OUT);
    assertThat(c.front()).isNull();
    assertThat(c.watched()).isSameAs(h);
    now += 49 * MS; // 99 ms after the hedge went
    assertThat(deadlines.due(now)).isNotEqualTo(Deadlines.Due.TRY);
    now += 1 * MS;
    assertThat(deadlines.due(now)).isEqualTo(Deadlines.Due.TRY);
    // The hedge is given up too: it was the last try out, and the request may go again.
    assertThat(c.lost(h, "timeout", Tries.Outcome.TRY_TIMEOUT, true, now))
        .isEqualTo(AfterLoss.RETRY);
    assertThat(c.phase()).isEqualTo(Phase.WAITING);
  }

  @Test
  void aHedgeIsDeniedWhenTheRetryBudgetIsSpent() {
    TryCourse<FakeTry> c = course(requests(true, 0, 0), true, 1);
    first(c);
    now += 20 * MS;
    assertThat(hedge(c)).isNull();
    assertThat(accounts).containsExactly("hedge denied");
    assertThat(deadlines.hedgesLeft()).as("no other hedge is due").isFalse();
  }

  @Test
  void noHedgeGoesOutOnceTheBodyOutgrewWhatIsKept() {
    TryCourse<FakeTry> c = course(true, true, 1);
    first(c);
    tries.bodyNotKept();
    now += 20 * MS;
    assertThat(hedge(c)).as("a body past what is kept is never sent twice").isNull();
    assertThat(accounts).as("not denied by the budget: not sent at all").isEmpty();
    assertThat(deadlines.hedgesLeft()).as("no other hedge is due").isFalse();
  }

  @Test
  void noHedgeGoesOutWhenNoMemberIsLeftOrTheRequestIsNotHedged() {
    members = 1;
    TryCourse<FakeTry> c = course(true, true, 1);
    first(c); // the one member
    now += 20 * MS;
    assertThat(hedge(c)).isNull();
    assertThat(accounts).isEmpty();
    assertThat(deadlines.hedgesLeft()).isFalse();

    members = 3;
    TryCourse<FakeTry> post = course(true, false, 1);
    first(post);
    assertThat(hedge(post)).as("not idempotent: not hedged").isNull();
  }

  @Test
  void aTryLostMidAnswerBreaksTheAnswerAndTheRequestStaysAnswering() {
    TryCourse<FakeTry> c = course(false, true, 1);
    FakeTry t = first(c);
    c.answered(t, now);
    assertThat(c.lost(t, "timeout", Tries.Outcome.TRY_TIMEOUT, true, now))
        .isEqualTo(AfterLoss.MID_ANSWER);
    assertThat(c.phase()).isEqualTo(Phase.ANSWERING);
    assertThat(accounts).containsExactly("first FAILED timeout");
  }

  @Test
  void theEndCancelsTheHedgesStillOutAndNothingCountsAfterIt() {
    TryCourse<FakeTry> c = course(true, true, 1);
    FakeTry t = first(c);
    now += 20 * MS;
    FakeTry h = hedge(c);
    accounts.clear();
    c.finish(now);
    assertThat(accounts).containsExactly("hedge 1 CANCELLED cancelled", "hedge lost");
    assertThat(c.lost(t, "reset", Tries.Outcome.RESET_BEFORE_RESPONSE, true, now))
        .isEqualTo(AfterLoss.NOT_OUT);
    assertThat(c.lost(h, "reset", Tries.Outcome.RESET_BEFORE_RESPONSE, true, now))
        .isEqualTo(AfterLoss.NOT_OUT);
    assertThat(hedge(c)).isNull();
  }

  @Test
  void noTryIsOutWhileTheRequestWaitsForOne() {
    TryCourse<FakeTry> c = course(false, true, 1);
    assertThat(c.carries(null)).isFalse();
    assertThat(c.watched()).isNull();
    assertThat(c.lost(null, "reset", Tries.Outcome.RESET_BEFORE_RESPONSE, true, now))
        .as("the try in front was already lost: nothing to lose")
        .isEqualTo(AfterLoss.NOT_OUT);
    assertThat(accounts).isEmpty();
  }

  @Test
  void aRetryReplacesA503OnlyWhenThePoolRetriesIdempotent5xxAndAMemberIsLeft() {
    TryCourse<FakeTry> off = course(requests(false, 20, 10), true, new RetryPolicy(1, false));
    FakeTry a = first(off);
    assertThat(off.answerReplaced(a, 503, true, now)).as("retryIdempotentOn5xx off").isFalse();
    assertThat(off.front()).isSameAs(a);

    TryCourse<FakeTry> on = course(requests(false, 20, 10), true, new RetryPolicy(1, true));
    FakeTry b = first(on);
    assertThat(on.answerReplaced(b, 500, true, now)).as("only 502 and 503").isFalse();
    assertThat(on.answerReplaced(b, 503, false, now)).as("its body is gone").isFalse();
    assertThat(on.answerReplaced(b, 503, true, now)).isTrue();
    assertThat(on.phase()).isEqualTo(Phase.WAITING);
    assertThat(on.carries(b)).isFalse();
    assertThat(accounts).containsExactly("first FAILED 5xx");
    FakeTry c = new FakeTry("retry", null, now);
    on.sent(c);
    assertThat(on.answerReplaced(c, 503, true, now)).as("once per request").isFalse();

    TryCourse<FakeTry> post = course(requests(false, 20, 10), false, new RetryPolicy(1, true));
    assertThat(post.answerReplaced(first(post), 503, true, now)).as("not safe to repeat").isFalse();

    TryCourse<FakeTry> hedged = course(requests(true, 20, 10), true, new RetryPolicy(1, true));
    FakeTry d = first(hedged);
    now += 20 * MS;
    hedge(hedged);
    assertThat(hedged.mayReplace(d, 503, true))
        .as("a hedge is out: the answer goes on, the hedge loses")
        .isFalse();
    assertThat(hedged.answerReplaced(d, 503, true, now)).isFalse();

    members = 1;
    TryCourse<FakeTry> alone = course(requests(false, 20, 10), true, new RetryPolicy(1, true));
    assertThat(alone.answerReplaced(first(alone), 503, true, now))
        .as("no member left to ask")
        .isFalse();
  }
}
