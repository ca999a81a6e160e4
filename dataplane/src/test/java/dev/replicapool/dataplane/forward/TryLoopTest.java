package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.replicapool.dataplane.accesslog.AccessLog;
import dev.replicapool.dataplane.config.PoolRuntime;
import dev.replicapool.dataplane.exchange.TryCourse;
import dev.replicapool.dataplane.policy.AdmissionQueue;
import dev.replicapool.dataplane.policy.Deadlines;
import dev.replicapool.dataplane.policy.HedgePolicy;
import dev.replicapool.dataplane.policy.IdempotentRequests;
import dev.replicapool.dataplane.policy.LatencyWindow;
import dev.replicapool.dataplane.policy.RequestPolicy;
import dev.replicapool.dataplane.policy.RetryBudgetWindow;
import dev.replicapool.dataplane.policy.RetryPolicy;
import dev.replicapool.dataplane.policy.Tries;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.proxy.ProxySettings;
import dev.replicapool.dataplane.routing.Endpoint;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How one request's tries go out, event by event, for a fake exchange (what either protocol's side
 * is told), a real pool router, {@link Tries}, {@link Deadlines} and {@link TryCourse}, and the
 * timer on an embedded event loop whose time the test moves with the data plane's clock; and how
 * requests of one pool share its members' in-flight slots through its queue ({@link QueueSlot}).
 * One class past 300 lines: every test drives the same fake exchange and pool set-up.
 */
class TryLoopTest {
  static final long MS = EmbeddedTime.MS;

  final EmbeddedTime time = new EmbeddedTime();
  final EmbeddedChannel channel = time.channel;
  final LongSupplier clock = time.clock;
  final ProxyObserver observer = time.observer;

  /** What the exchange's side was told, in order. */
  final List<String> told = new ArrayList<>();

  /** What the metrics were told, in order. */
  final List<String> counted = time.counted;

  record FakeTry(Endpoint member, long sentAt) implements TryCourse.Attempt {}

  /** Whether the fake exchange holds a member's answer for a retry. */
  boolean holding;

  /** The request under test: the fake exchange does to it what a protocol's side would. */
  TryLoop<FakeTry> current;

  final TryLoop.Exchange<FakeTry> exchange =
      new TryLoop.Exchange<>() {
        @Override
        public FakeTry newTry(Endpoint e, long now) {
          return new FakeTry(e, now);
        }

        @Override
        public void open(FakeTry t) {
          told.add("open " + t.member().host());
        }

        @Override
        public void rewind() {
          told.add("rewind");
        }

        @Override
        public void localAnswer(int status, String message) {
          told.add("localAnswer " + status + " " + message);
          current.end(status); // the client is answered, the request ends
        }

        @Override
        public void requestTimedOut() {
          told.add("requestTimedOut");
          current.end(504); // the request ends
        }

        @Override
        public void tryTimedOut(FakeTry t, String why) {
          assertThat(t).isSameAs(current.course.watched());
          assertThat(current.failureStatus()).isEqualTo(504);
          assertThat(current.failureMessage()).isEqualTo(why).contains("within 100 ms");
          told.add("tryTimedOut");
          current.lost(t, "timeout", Tries.Outcome.TRY_TIMEOUT, true, "timeout");
        }

        @Override
        public boolean sendHeldAnswer() {
          if (!holding) {
            return false;
          }
          told.add("sendHeldAnswer");
          holding = false;
          current.end(503);
          return true;
        }

        @Override
        public void answerBroke(String why) {
          told.add("answerBroke " + why);
          current.end(502);
        }

        @Override
        public void memberSilent() {
          told.add("memberSilent");
        }

        @Override
        public void clientStalled() {
          told.add("clientStalled");
        }

        @Override
        public void clientSilent() {
          told.add("clientSilent");
        }

        @Override
        public void hedgeDue(long now) {
          FakeTry h = current.course.hedgeDue(now, e -> new FakeTry(e, now));
          told.add("hedgeDue: " + (h == null ? "none" : h.member().host()));
        }

        @Override
        public void release() {
          released.add("released with " + time.responses.size() + " records ended");
        }
      };

  /**
   * Each time the fake exchange was told to let go of what it kept, and how many records had ended.
   */
  final List<String> released = new ArrayList<>();

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  /**
   * A request of pool "a/p" with {@code members}, the given timeouts and retry budget (and 10
   * retries a second whatever the percentage, unless it is 0).
   */
  TryLoop<FakeTry> loop(int members, long requestMs, long perTryMs, int budgetPercent) {
    return loop(members, requestMs, perTryMs, budgetPercent, null);
  }

  TryLoop<FakeTry> loop(
      int members, long requestMs, long perTryMs, int budgetPercent, HedgePolicy hedging) {
    RequestPolicy rp =
        new RequestPolicy(
            requestMs * MS,
            perTryMs * MS,
            0,
            hedging,
            new RetryBudgetWindow(budgetPercent, budgetPercent == 0 ? 0 : 10, clock),
            new LatencyWindow(clock),
            0,
            null,
            IdempotentRequests.DEFAULT);
    return request(pool(members, rp));
  }

  /**
   * A pool of {@code members}, at most {@code maxPerMember} requests in flight on each, and a queue
   * of {@code depth} requests waiting at most {@code queueMs} for a slot; no timeouts, no budget.
   */
  PoolRuntime limitedPool(int members, int maxPerMember, int depth, long queueMs) {
    return pool(
        members,
        new RequestPolicy(
            0,
            0,
            0,
            null,
            new RetryBudgetWindow(0, 0, clock),
            new LatencyWindow(clock),
            maxPerMember,
            new AdmissionQueue(depth, queueMs * MS, clock),
            IdempotentRequests.DEFAULT));
  }

  PoolRuntime pool(int members, RequestPolicy rp) {
    return time.pool(members, RETRY, rp);
  }

  static final RetryPolicy RETRY = new RetryPolicy(2, false);

  /**
   * A request of {@code pool}, made the current one; its tries' ends free their members' slots, as
   * either protocol's accounts do.
   */
  TryLoop<FakeTry> request(PoolRuntime pool) {
    RequestPolicy rp = pool.requests();
    Forwarding fw =
        new Forwarding(
            ProxySettings.defaults(), () -> null, observer, clock, "test", null, null, null);
    long now = clock.getAsLong();
    Tries tries = new Tries(RETRY, rp, true, true);
    Deadlines deadlines = new Deadlines(now, rp.requestNanos(), rp.perTryNanos(), 0);
    TryCourse.Accounts<FakeTry> accounts =
        new TryCourse.Accounts<>() {
          @Override
          public void hedge(String outcome) {}

          @Override
          public void ended(FakeTry t, TryCourse.End end, boolean inFront, String label, long at) {
            told.add("ended " + t.member().host() + " " + end);
            rp.released(t.member());
          }
        };
    RequestRecord record =
        new RequestRecord(AccessLog.OFF, null, observer, clock, "a/p", null, now, null);
    current =
        new TryLoop<>(fw, pool, channel.eventLoop(), tries, deadlines, accounts, record, exchange);
    return current;
  }

  void advanceMillis(long ms) {
    time.advanceMillis(ms);
  }

  @Test
  void theFirstTryGoesToAMemberAndItsPerTryTimeoutIsWatchedFromThen() {
    TryLoop<FakeTry> loop = loop(3, 0, 100, 20);
    loop.start();
    assertThat(told).containsExactly("open 10.0.0.1");
    assertThat(loop.course.phase()).isEqualTo(TryCourse.Phase.TRYING);
    advanceMillis(99);
    assertThat(told).containsExactly("open 10.0.0.1");
    advanceMillis(1);
    assertThat(told)
        .containsExactly(
            "open 10.0.0.1", "tryTimedOut", "ended 10.0.0.1 FAILED", "rewind", "open 10.0.0.2");
    assertThat(counted).containsExactly("retry timeout");
    advanceMillis(100); // the retry's own per-try timeout, from when it went out
    assertThat(told)
        .containsExactly(
            "open 10.0.0.1",
            "tryTimedOut",
            "ended 10.0.0.1 FAILED",
            "rewind",
            "open 10.0.0.2",
            "tryTimedOut",
            "ended 10.0.0.2 FAILED",
            "rewind",
            "open 10.0.0.3");
    advanceMillis(100); // the last member's: no member is left untried
    assertThat(told)
        .hasSize(12)
        .endsWith(
            "tryTimedOut",
            "ended 10.0.0.3 FAILED",
            "localAnswer 504 member 10.0.0.3:8080 of pool a/p did not answer within 100 ms");
    assertThat(loop.course.phase()).isEqualTo(TryCourse.Phase.DONE);
  }

  @Test
  void aPoolWithNoRoutableMemberIsAnswered503NamingThePool() {
    TryLoop<FakeTry> loop = loop(0, 0, 100, 20);
    loop.start();
    assertThat(told).containsExactly("localAnswer 503 no routable member in pool a/p");
  }

  @Test
  void whenNoMemberIsLeftTheClientGetsTheLastTrysFailureNotA503() {
    TryLoop<FakeTry> loop = loop(1, 0, 100, 20);
    loop.start();
    loop.failed(504, "member 10.0.0.1:8080 of pool a/p did not answer within 100 ms");
    loop.retry("timeout");
    assertThat(told)
        .containsExactly(
            "open 10.0.0.1",
            "rewind",
            "localAnswer 504 member 10.0.0.1:8080 of pool a/p did not answer within 100 ms");
    assertThat(counted).containsExactly("retry timeout");
  }

  @Test
  void whenNoMemberIsLeftTheMembersAnswerHeldForTheRetryGoesNotTheProxysFailure() {
    TryLoop<FakeTry> loop = loop(1, 0, 100, 20);
    loop.start();
    holding = true; // the member answered 503, held for a retry elsewhere
    loop.failed(502, "member 10.0.0.1:8080 of pool a/p answered 503");
    loop.retry("status_503");
    assertThat(told).containsExactly("open 10.0.0.1", "rewind", "sendHeldAnswer");
  }

  /** A request to two members: the first answered 503, held; the retry went to the second. */
  TryLoop<FakeTry> retryingAHeld503() {
    TryLoop<FakeTry> loop = loop(2, 0, 1_000, 20);
    loop.start();
    holding = true;
    loop.failed(502, "member 10.0.0.1:8080 of pool a/p answered 503");
    loop.retry("status_503");
    return loop;
  }

  @Test
  void aLastRetryThatCouldNotConnectLeavesTheHeldAnswerAsTheBestThereIs() {
    TryLoop<FakeTry> loop = retryingAHeld503();
    loop.failed(502, "member 10.0.0.2:8080 of pool a/p is unreachable");
    loop.lost(
        loop.course.front(), "connect_failure", Tries.Outcome.CONNECT_FAILURE, true, "connect");
    assertThat(told)
        .containsExactly(
            "open 10.0.0.1", "rewind", "open 10.0.0.2", "ended 10.0.0.2 FAILED", "sendHeldAnswer");
  }

  @Test
  void aLastRetryThatMayHaveReachedItsMemberAnswersItsOwnFailureNotTheHeldAnswer() {
    TryLoop<FakeTry> loop = retryingAHeld503();
    loop.failed(502, "member 10.0.0.2:8080 of pool a/p closed the connection");
    loop.lost(loop.course.front(), "reset", Tries.Outcome.RESET_BEFORE_RESPONSE, true, "reset");
    assertThat(told)
        .endsWith(
            "ended 10.0.0.2 FAILED",
            "localAnswer 502 member 10.0.0.2:8080 of pool a/p closed the connection")
        .doesNotContain("sendHeldAnswer");
  }

  @Test
  void aRetryGoesToAMemberNotTriedYet() {
    TryLoop<FakeTry> loop = loop(2, 0, 100, 20);
    loop.start();
    loop.failed(502, "member 10.0.0.1:8080 of pool a/p is unreachable");
    loop.retry("connect_failure");
    assertThat(told)
        .as("every retry rewinds the request first")
        .containsExactly("open 10.0.0.1", "rewind", "open 10.0.0.2");
  }

  @Test
  void aTryLostWhileAHedgeIsOutWaitsForTheHedge() {
    TryLoop<FakeTry> loop = loop(3, 0, 1_000, 20, new HedgePolicy(20 * MS, 0, 20 * MS, 1));
    loop.deadlines.hedging(1, 20 * MS);
    loop.start();
    advanceMillis(20);
    FakeTry first = loop.course.front();
    loop.failed(502, "member 10.0.0.1:8080 of pool a/p closed the connection");
    loop.lost(first, "reset", Tries.Outcome.RESET_BEFORE_RESPONSE, true, "reset");
    assertThat(told)
        .as("no retry and no answer: the hedge may still answer")
        .containsExactly("open 10.0.0.1", "hedgeDue: 10.0.0.2", "ended 10.0.0.1 FAILED");
    assertThat(loop.course.watched().member().host()).isEqualTo("10.0.0.2");
    assertThat(counted).isEmpty();
  }

  @Test
  void aTryLostThatMayHaveReachedItsMemberIsNotRetriedUnlessReplayable() {
    TryLoop<FakeTry> loop = loop(3, 0, 1_000, 20);
    loop.start();
    loop.failed(502, "member 10.0.0.1:8080 of pool a/p closed the connection");
    loop.lost(loop.course.front(), "reset", Tries.Outcome.RESET_BEFORE_RESPONSE, false, "reset");
    assertThat(told)
        .containsExactly(
            "open 10.0.0.1",
            "ended 10.0.0.1 FAILED",
            "localAnswer 502 member 10.0.0.1:8080 of pool a/p closed the connection");
    assertThat(counted).isEmpty();
  }

  @Test
  void aTryLostOnceItsAnswerStartedBreaksTheClientsAnswer() {
    TryLoop<FakeTry> loop = loop(3, 0, 1_000, 20);
    loop.start();
    FakeTry t = loop.course.front();
    loop.course.answered(t, clock.getAsLong());
    loop.failed(502, "member 10.0.0.1:8080 of pool a/p closed the connection");
    loop.lost(t, "reset", Tries.Outcome.RESET_BEFORE_RESPONSE, true, "reset");
    assertThat(told)
        .as("a request whose answer started is never sent again")
        .endsWith("answerBroke member 10.0.0.1:8080 of pool a/p closed the connection")
        .doesNotContain("rewind");
  }

  @Test
  void theRequestTimeoutEndsTheRequestBeforeALongerPerTryTimeout() {
    TryLoop<FakeTry> loop = loop(3, 300, 1_000, 20);
    loop.start();
    advanceMillis(299);
    assertThat(told).containsExactly("open 10.0.0.1");
    advanceMillis(1);
    assertThat(told).containsExactly("open 10.0.0.1", "requestTimedOut");
    advanceMillis(1_000);
    assertThat(told).as("no deadline after the end").hasSize(2);
  }

  @Test
  void aDueHedgeIsHandedToTheExchange() {
    TryLoop<FakeTry> loop = loop(3, 0, 1_000, 20, new HedgePolicy(20 * MS, 0, 20 * MS, 1));
    loop.deadlines.hedging(1, 20 * MS); // as the exchange sets it for a request it may hedge
    loop.start();
    advanceMillis(20);
    assertThat(told).containsExactly("open 10.0.0.1", "hedgeDue: 10.0.0.2");
  }

  @Test
  void theEndStopsTheTimerEndsTheTriesOutAndCountsARetryTheBudgetDenied() {
    TryLoop<FakeTry> loop = loop(3, 0, 100, 0); // a budget of 0 %: no retry is paid for
    loop.start();
    assertThat(loop.tries.shouldRetry(Tries.Outcome.TRY_TIMEOUT)).isFalse();
    loop.end(200);
    assertThat(loop.course.phase()).isEqualTo(TryCourse.Phase.DONE);
    assertThat(counted).containsExactly("budget exhausted");
    advanceMillis(1_000);
    assertThat(told).as("no deadline after the end").containsExactly("open 10.0.0.1");
  }

  @Test
  void anEndWithoutADeniedRetryCountsNothing() {
    TryLoop<FakeTry> loop = loop(3, 0, 100, 20);
    loop.start();
    loop.end(200);
    assertThat(counted).isEmpty();
  }

  @Test
  void theRequestEndsOnceAndItsRecordEndsWithTheStatusTheClientGotAfterTheProtocolLetGo() {
    TryLoop<FakeTry> loop = loop(3, 0, 100, 20);
    loop.start();
    assertThat(loop.ended()).isFalse();
    assertThat(loop.end(200)).isTrue();
    assertThat(loop.ended()).isTrue();
    assertThat(loop.end(502)).as("a second end does nothing").isFalse();
    assertThat(released).containsExactly("released with 0 records ended");
    assertThat(time.responses).containsExactly(200);
    assertThat(told)
        .as("the try in front is its protocol's to end")
        .containsExactly("open 10.0.0.1");
  }

  @Test
  void theProxysOwnAnswerIsWrittenAfterThePartsLetGoAndBeforeTheRecordEnds() {
    TryLoop<FakeTry> loop = loop(3, 0, 100, 20);
    loop.start();
    List<String> order = new ArrayList<>();
    assertThat(
            loop.end(
                503,
                () -> {
                  order.add("answer after " + released + ", " + time.responses);
                  return 120;
                }))
        .isTrue();
    assertThat(order).containsExactly("answer after [released with 0 records ended], []");
    assertThat(time.responses).containsExactly(503);
    assertThat(loop.end(503, () -> fail("an ended request writes no answer of its own"))).isFalse();
  }

  @Test
  void whileEveryMemberIsFullARequestWaitsInTheQueueAndTakesTheFirstFreedSlot() {
    PoolRuntime pool = limitedPool(1, 1, 1, 50);
    TryLoop<FakeTry> first = request(pool);
    first.start();
    assertThat(told).containsExactly("open 10.0.0.1");

    request(pool).start(); // the member is full: it waits
    assertThat(told).containsExactly("open 10.0.0.1");
    assertThat(counted).containsExactly("queue queued");

    request(pool).start(); // the queue of one is full too
    assertThat(told)
        .containsExactly(
            "open 10.0.0.1",
            "localAnswer 503 every member of pool a/p is at its limit of 1 requests in flight"
                + " and its queue is full");
    assertThat(counted).containsExactly("queue queued", "queue overflow");

    // The first answer is over: its protocol frees the member's slot, which goes to the one
    // waiting.
    pool.requests().released(first.course.endFront().member());
    first.end(200);
    channel.runPendingTasks();
    assertThat(told).hasSize(3).endsWith("open 10.0.0.1");
    assertThat(counted).containsExactly("queue queued", "queue overflow", "queue admitted");
  }

  @Test
  void aRequestThatWaitedInVainIsAnswered503NamingTheLimit() {
    PoolRuntime pool = limitedPool(1, 1, 2, 50);
    request(pool).start();
    request(pool).start();
    advanceMillis(49);
    assertThat(told).containsExactly("open 10.0.0.1");
    advanceMillis(1);
    assertThat(told)
        .containsExactly(
            "open 10.0.0.1",
            "localAnswer 503 no member of pool a/p had a free slot within 50 ms"
                + " (maxRequestsPerMember 1)");
    assertThat(counted).containsExactly("queue queued", "queue timeout");
  }

  @Test
  void aRequestArrivingWhileOthersWaitQueuesBehindThemEvenIfASlotIsFreeAndTheyGoInOrder() {
    PoolRuntime pool = limitedPool(1, 1, 4, 1_000);
    TryLoop<FakeTry> a = request(pool);
    a.start();
    TryLoop<FakeTry> b = request(pool);
    b.start();
    TryLoop<FakeTry> c = request(pool);
    c.start();
    assertThat(counted).containsExactly("queue queued", "queue queued");

    pool.requests().released(a.course.endFront().member()); // b is woken, not yet on its way
    TryLoop<FakeTry> d = request(pool);
    d.start(); // c still waits: d queues behind it, though the slot is free this instant
    assertThat(counted).containsExactly("queue queued", "queue queued", "queue queued");
    channel.runPendingTasks();
    assertThat(b.course.front()).as("the longest waiting took the slot").isNotNull();
    assertThat(counted).endsWith("queue admitted");

    pool.requests().released(b.course.endFront().member());
    channel.runPendingTasks();
    assertThat(c.course.front()).as("then the next in line").isNotNull();
    assertThat(d.course.front()).isNull();
    assertThat(pool.requests().queue().depth()).isEqualTo(1);
  }
}
