package dev.replicapool.dataplane.policy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The budget's arithmetic on a fake clock, second by second. */
class RetryBudgetWindowTest {
  final FakeClock clock = new FakeClock();

  int withdrawAll(RetryBudgetWindow b) {
    int n = 0;
    while (b.tryWithdraw()) {
      n++;
    }
    return n;
  }

  @Test
  void withoutTrafficTheFloorAllowsMinPerSecondTimesTheWindow() {
    RetryBudgetWindow b = new RetryBudgetWindow(20, 10, clock::getAsLong);
    assertThat(withdrawAll(b)).isEqualTo(100);
  }

  @Test
  void underLoadRetriesStayAtThePercentageOfRequests() {
    RetryBudgetWindow b = new RetryBudgetWindow(20, 10, clock::getAsLong);
    for (int i = 0; i < 10_000; i++) {
      b.deposit();
    }
    assertThat(withdrawAll(b)).isEqualTo(2_000);
  }

  @Test
  void theFloorIsNotAddedToThePercentage() {
    RetryBudgetWindow b = new RetryBudgetWindow(20, 10, clock::getAsLong);
    for (int i = 0; i < 1_000; i++) {
      b.deposit();
    }
    assertThat(withdrawAll(b)).as("max(200, 100), not 300").isEqualTo(200);
  }

  @Test
  void aSteadyStormOfFailuresGetsAtMostTwentyPercentMoreTries() {
    RetryBudgetWindow b = new RetryBudgetWindow(20, 10, clock::getAsLong);
    long requests = 0;
    long retries = 0;
    for (int second = 0; second < 60; second++) {
      for (int i = 0; i < 1_000; i++) {
        b.deposit();
        requests++;
        if (b.tryWithdraw()) {
          retries++; // every request fails and asks for a retry
        }
      }
      clock.advanceMillis(1_000);
    }
    assertThat((double) (requests + retries) / requests).isLessThanOrEqualTo(1.2);
    assertThat((double) (requests + retries) / requests).isGreaterThan(1.15);
  }

  @Test
  void spentRetriesComeBackAsTheirSecondsLeaveTheWindow() {
    RetryBudgetWindow b = new RetryBudgetWindow(0, 1, clock::getAsLong);
    assertThat(withdrawAll(b)).isEqualTo(10);
    clock.advanceMillis(9_000);
    assertThat(b.tryWithdraw()).as("the spent ones are 9 s old: still in the window").isFalse();
    clock.advanceMillis(1_000);
    assertThat(withdrawAll(b)).as("they left the window").isEqualTo(10);
  }

  @Test
  void depositsOlderThanTheWindowNoLongerCount() {
    RetryBudgetWindow b = new RetryBudgetWindow(50, 0, clock::getAsLong);
    for (int i = 0; i < 100; i++) {
      b.deposit();
    }
    clock.advanceMillis(30_000);
    assertThat(b.tryWithdraw()).isFalse();
  }

  @Test
  void zeroPercentAndZeroFloorAllowsNothing() {
    RetryBudgetWindow b = new RetryBudgetWindow(0, 0, clock::getAsLong);
    b.deposit();
    assertThat(b.tryWithdraw()).isFalse();
  }
}
