package dev.replicapool.dataplane.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.config.RetryPolicy;
import org.junit.jupiter.api.Test;

/** Each retry decision, outcome by outcome. */
class TriesTest {
  static RetryPolicy policy(int retries, boolean on5xx) {
    return new RetryPolicy(retries, on5xx);
  }

  @Test
  void aConnectFailureIsRetriedWithinTheBudgetWhateverTheRequest() {
    Tries t = new Tries(policy(2, false), false, false);
    assertThat(t.shouldRetry(Tries.Outcome.CONNECT_FAILURE)).isTrue();
    assertThat(t.shouldRetry(Tries.Outcome.CONNECT_FAILURE)).isTrue();
    assertThat(t.shouldRetry(Tries.Outcome.CONNECT_FAILURE)).isFalse();
  }

  @Test
  void aResetBeforeAnyAnswerIsRetriedOnlyForBodylessIdempotentRequests() {
    assertThat(
            new Tries(policy(1, false), true, true)
                .shouldRetry(Tries.Outcome.RESET_BEFORE_RESPONSE))
        .isTrue();
    assertThat(
            new Tries(policy(1, false), false, true)
                .shouldRetry(Tries.Outcome.RESET_BEFORE_RESPONSE))
        .isFalse();
    assertThat(
            new Tries(policy(1, false), true, false)
                .shouldRetry(Tries.Outcome.RESET_BEFORE_RESPONSE))
        .isFalse();
    Tries shared = new Tries(policy(1, false), true, true);
    shared.shouldRetry(Tries.Outcome.CONNECT_FAILURE);
    assertThat(shared.shouldRetry(Tries.Outcome.RESET_BEFORE_RESPONSE))
        .as("one budget for both")
        .isFalse();
  }

  @Test
  void an502Or503AnswerIsRetriedOnceWhenThePoolAllowsIt() {
    Tries off = new Tries(policy(1, false), true, true);
    assertThat(off.wouldRetryAnswer(503)).isFalse();
    Tries on = new Tries(policy(1, true), true, true);
    assertThat(on.wouldRetryAnswer(500)).isFalse();
    assertThat(on.wouldRetryAnswer(502)).isTrue();
    assertThat(on.shouldRetry(Tries.Outcome.UNAVAILABLE_ANSWER)).isTrue();
    assertThat(on.wouldRetryAnswer(503)).isFalse();
    assertThat(on.shouldRetry(Tries.Outcome.UNAVAILABLE_ANSWER)).isFalse();
  }
}
