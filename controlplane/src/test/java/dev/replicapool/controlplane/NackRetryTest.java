package dev.replicapool.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The retry decision for one data plane's rejected pools, transition by transition. */
class NackRetryTest {
  final NackRetry retry = new NackRetry();

  @Test
  void nothingRejectedNothingDue() {
    assertThat(retry.due(0)).isEmpty();
    retry.freed(0);
    assertThat(retry.due(Long.MAX_VALUE - 1)).isEmpty();
  }

  @Test
  void aRejectedPoolIsDueAfterTheFirstBackoff() {
    retry.rejected("ns/y", 1_000);
    assertThat(retry.due(1_000 + NackRetry.FIRST_DELAY_MILLIS - 1)).isEmpty();
    assertThat(retry.due(1_000 + NackRetry.FIRST_DELAY_MILLIS)).containsExactly("ns/y");
    // Sent again: nothing more is due until it is rejected again.
    assertThat(retry.due(1_000_000)).isEmpty();
    assertThat(retry.rejected()).containsExactly("ns/y");
  }

  @Test
  void eachRoundRejectedAgainWaitsTwiceAsLongUpToTheBound() {
    long now = 0;
    long wait = NackRetry.FIRST_DELAY_MILLIS;
    for (int round = 0; round < 8; round++) {
      retry.rejected("ns/y", now);
      assertThat(retry.due(now + wait - 1)).isEmpty();
      now += wait;
      assertThat(retry.due(now)).containsExactly("ns/y");
      wait = Math.min(NackRetry.MAX_DELAY_MILLIS, wait * 2);
    }
    assertThat(wait).isEqualTo(NackRetry.MAX_DELAY_MILLIS);
  }

  @Test
  void everyRejectedPoolGoesInOneRoundSoThatASwapAppliesTogether() {
    retry.rejected("ns/x", 0);
    retry.rejected("ns/y", 50); // the round is due with the first one's backoff
    assertThat(retry.due(NackRetry.FIRST_DELAY_MILLIS)).containsExactlyInAnyOrder("ns/x", "ns/y");
  }

  @Test
  void aFreedHostOrPortMakesARoundDueAtOnceAndResetsTheBackoff() {
    retry.rejected("ns/y", 0);
    retry.due(NackRetry.FIRST_DELAY_MILLIS);
    retry.rejected("ns/y", 300); // backoff now doubled
    retry.freed(310);
    assertThat(retry.due(310)).containsExactly("ns/y");
    // That round was the first since the reset: rejected again, it waits twice the first delay.
    retry.rejected("ns/y", 320);
    assertThat(retry.due(320 + 2 * NackRetry.FIRST_DELAY_MILLIS - 1)).isEmpty();
    assertThat(retry.due(320 + 2 * NackRetry.FIRST_DELAY_MILLIS)).containsExactly("ns/y");
  }

  @Test
  void aSettledPoolIsNotSentAgain() {
    retry.rejected("ns/x", 0);
    retry.rejected("ns/y", 0);
    retry.settled("ns/x"); // ACKed, or replaced by a newer version or a removal
    assertThat(retry.due(NackRetry.FIRST_DELAY_MILLIS)).containsExactly("ns/y");
  }

  @Test
  void whenTheLastOneSettlesTheBackoffStartsOver() {
    retry.rejected("ns/y", 0);
    retry.due(NackRetry.FIRST_DELAY_MILLIS);
    retry.rejected("ns/y", 1_000);
    retry.settled("ns/y");
    assertThat(retry.due(1_000_000)).isEmpty();
    retry.rejected("ns/z", 2_000);
    assertThat(retry.due(2_000 + NackRetry.FIRST_DELAY_MILLIS)).containsExactly("ns/z");
  }

  @Test
  void settlingAPoolNeverRejectedChangesNothing() {
    retry.rejected("ns/y", 0);
    retry.settled("ns/other");
    assertThat(retry.due(NackRetry.FIRST_DELAY_MILLIS)).containsExactly("ns/y");
  }

  @Test
  void routeClaimsTellWhatIsGivenUp() {
    RouteClaims hx = new RouteClaims(java.util.Set.of("h", "x"), 8080);
    assertThat(hx.givesUpFor(new RouteClaims(java.util.Set.of("x"), 8080))).isTrue();
    assertThat(hx.givesUpFor(new RouteClaims(java.util.Set.of("h", "x", "z"), 8080))).isFalse();
    assertThat(hx.givesUpFor(new RouteClaims(java.util.Set.of("h", "x"), null))).isTrue();
    assertThat(hx.givesUpFor(RouteClaims.NONE)).isTrue();
    assertThat(RouteClaims.NONE.givesUpFor(hx)).isFalse();
  }
}
