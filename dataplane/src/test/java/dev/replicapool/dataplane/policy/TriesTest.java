package dev.replicapool.dataplane.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Each retry decision, outcome by outcome. */
class TriesTest {
  final FakeClock clock = new FakeClock();

  static RetryPolicy policy(int retries, boolean on5xx) {
    return new RetryPolicy(retries, on5xx);
  }

  RequestPolicy requests() {
    return RequestPolicy.defaults(30_000_000_000L, clock::getAsLong);
  }

  RequestPolicy withBudget(int percent, int minPerSecond) {
    RequestPolicy d = requests();
    return new RequestPolicy(
        0,
        0,
        d.idleNanos(),
        null,
        new RetryBudgetWindow(percent, minPerSecond, clock::getAsLong),
        d.latencies(),
        0,
        null,
        IdempotentRequests.DEFAULT);
  }

  @Test
  void aConnectFailureIsRetriedWithinTheBudgetWhateverTheRequest() {
    Tries t = new Tries(policy(2, false), requests(), false, false);
    assertThat(t.shouldRetry(Tries.Outcome.CONNECT_FAILURE)).isTrue();
    assertThat(t.shouldRetry(Tries.Outcome.CONNECT_FAILURE)).isTrue();
    assertThat(t.shouldRetry(Tries.Outcome.CONNECT_FAILURE)).isFalse();
  }

  @Test
  void aResetBeforeAnyAnswerIsRetriedOnlyForBodylessIdempotentRequests() {
    assertThat(
            new Tries(policy(1, false), requests(), true, true)
                .shouldRetry(Tries.Outcome.RESET_BEFORE_RESPONSE))
        .isTrue();
    assertThat(
            new Tries(policy(1, false), requests(), false, true)
                .shouldRetry(Tries.Outcome.RESET_BEFORE_RESPONSE))
        .isFalse();
    assertThat(
            new Tries(policy(1, false), requests(), true, false)
                .shouldRetry(Tries.Outcome.RESET_BEFORE_RESPONSE))
        .isFalse();
    Tries shared = new Tries(policy(1, false), requests(), true, true);
    shared.shouldRetry(Tries.Outcome.CONNECT_FAILURE);
    assertThat(shared.shouldRetry(Tries.Outcome.RESET_BEFORE_RESPONSE))
        .as("one budget for both")
        .isFalse();
  }

  @Test
  void an502Or503AnswerIsRetriedOnceWhenThePoolAllowsIt() {
    Tries off = new Tries(policy(1, false), requests(), true, true);
    assertThat(off.wouldRetryAnswer(503)).isFalse();
    Tries on = new Tries(policy(1, true), requests(), true, true);
    assertThat(on.wouldRetryAnswer(500)).isFalse();
    assertThat(on.wouldRetryAnswer(502)).isTrue();
    assertThat(on.shouldRetry(Tries.Outcome.UNAVAILABLE_ANSWER)).isTrue();
    assertThat(on.wouldRetryAnswer(503)).isFalse();
    assertThat(on.shouldRetry(Tries.Outcome.UNAVAILABLE_ANSWER)).isFalse();
  }

  @Test
  void aTryTimeoutIsRetriedLikeAResetBeforeAnyAnswer() {
    assertThat(
            new Tries(policy(1, false), requests(), true, true)
                .shouldRetry(Tries.Outcome.TRY_TIMEOUT))
        .isTrue();
    assertThat(
            new Tries(policy(1, false), requests(), true, false)
                .shouldRetry(Tries.Outcome.TRY_TIMEOUT))
        .as("a body went out and is not kept")
        .isFalse();
  }

  @Test
  void everyRetryIsPaidFromThePoolsBudget() {
    RequestPolicy pool = withBudget(0, 1); // 10 retries in the window, whatever the load
    int allowed = 0;
    for (int i = 0; i < 50; i++) {
      Tries t = new Tries(policy(1, true), pool, true, true);
      if (t.shouldRetry(Tries.Outcome.CONNECT_FAILURE)) {
        allowed++;
      } else {
        assertThat(t.budgetDenials()).isEqualTo(1);
      }
    }
    assertThat(allowed).isEqualTo(10);
  }

  @Test
  void aRetryTheRulesRefuseCostsNothing() {
    RequestPolicy pool = withBudget(0, 1);
    for (int i = 0; i < 50; i++) {
      new Tries(policy(1, false), pool, false, true)
          .shouldRetry(Tries.Outcome.RESET_BEFORE_RESPONSE);
    }
    assertThat(
            new Tries(policy(1, false), pool, true, true)
                .shouldRetry(Tries.Outcome.CONNECT_FAILURE))
        .isTrue();
  }

  @Test
  void hedgesArePaidFromTheSameBudget() {
    RequestPolicy pool = withBudget(0, 1);
    Tries t = new Tries(policy(1, false), pool, true, true);
    for (int i = 0; i < 10; i++) {
      assertThat(t.mayHedge()).isTrue();
    }
    assertThat(t.mayHedge()).isFalse();
    assertThat(t.shouldRetry(Tries.Outcome.CONNECT_FAILURE)).isFalse();
  }

  @Test
  void onlyIdempotentRequestsWithoutABodyAreHedgedAndOnlyWhenThePoolHedges() {
    RequestPolicy d = requests();
    var h = new dev.replicapool.api.v1alpha1.Hedging();
    h.delayMillis = 10L;
    RequestPolicy pool =
        new RequestPolicy(
            0,
            0,
            d.idleNanos(),
            HedgePolicy.from(h, 50),
            d.budget(),
            d.latencies(),
            0,
            null,
            IdempotentRequests.DEFAULT);
    assertThat(new Tries(policy(1, false), pool, true, true).hedgeable()).isTrue();
    assertThat(new Tries(policy(1, false), pool, false, true).hedgeable()).isFalse();
    assertThat(new Tries(policy(1, false), pool, true, false).hedgeable()).isFalse();
    assertThat(new Tries(policy(1, false), requests(), true, true).hedgeable())
        .as("a pool without hedging")
        .isFalse();
  }

  // ---- retry safety, transition by transition (the table of docs/DATAPLANE.md) -------------

  @Test
  void aTryTheMemberLeftUnprocessedMayGoElsewhereWhateverTheMethod() {
    Tries post = new Tries(policy(1, false), requests(), false, true);
    assertThat(post.shouldRetry(Tries.Outcome.UNPROCESSED)).isTrue();
    assertThat(post.shouldRetry(Tries.Outcome.UNPROCESSED))
        .as("within connectFailureRetries")
        .isFalse();
  }

  @Test
  void aTryTheMemberLeftUnprocessedNeedsTheWholeRequestToSendItAgain() {
    Tries post = new Tries(policy(2, false), requests(), false, true);
    post.bodyNotKept();
    assertThat(post.shouldRetry(Tries.Outcome.UNPROCESSED))
        .as("its body went to the refused stream and was not kept")
        .isFalse();
    assertThat(post.shouldRetry(Tries.Outcome.CONNECT_FAILURE))
        .as("a connect failure sent nothing: the body is still to come")
        .isTrue();
  }

  @Test
  void aResetOfANonIdempotentRequestIsNeverSentAgainEvenWithItsBodyKept() {
    Tries post = new Tries(policy(3, true), requests(), false, true);
    assertThat(post.shouldRetry(Tries.Outcome.RESET_BEFORE_RESPONSE)).isFalse();
    assertThat(post.shouldRetry(Tries.Outcome.TRY_TIMEOUT)).isFalse();
    assertThat(post.wouldRetryAnswer(503)).isFalse();
  }

  @Test
  void aResetOfANamedIdempotentRequestIsSentAgainWhileItsBodyIsKept() {
    Tries put = new Tries(policy(2, false), requests(), true, true);
    assertThat(put.shouldRetry(Tries.Outcome.RESET_BEFORE_RESPONSE)).isTrue();
    put.bodyNotKept();
    assertThat(put.shouldRetry(Tries.Outcome.RESET_BEFORE_RESPONSE))
        .as("the body outgrew what is kept")
        .isFalse();
    assertThat(put.shouldRetry(Tries.Outcome.CONNECT_FAILURE)).isTrue();
  }
}
