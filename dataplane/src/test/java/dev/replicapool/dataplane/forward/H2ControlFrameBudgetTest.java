package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class H2ControlFrameBudgetTest {
  final AtomicLong now = new AtomicLong(1_000_000_000L);
  final H2ControlFrameBudget budget = new H2ControlFrameBudget(now::get);

  int spendAll() {
    int n = 0;
    while (budget.spend()) {
      n++;
    }
    return n;
  }

  @Test
  void aBurstOfControlFramesIsAllowedThenRefused() {
    assertThat(spendAll()).isEqualTo(H2ControlFrameBudget.BURST);
    assertThat(budget.spend()).isFalse();
  }

  @Test
  void oneFrameIsEarnedBackPerRefillPeriod() {
    spendAll();
    now.addAndGet(H2ControlFrameBudget.REFILL_NANOS - 1);
    assertThat(budget.spend()).as("not yet earned").isFalse();
    now.addAndGet(1);
    assertThat(budget.spend()).isTrue();
    assertThat(budget.spend()).isFalse();
    now.addAndGet(3 * H2ControlFrameBudget.REFILL_NANOS + H2ControlFrameBudget.REFILL_NANOS / 2);
    assertThat(spendAll()).as("three earned, the half period kept for the next").isEqualTo(3);
    now.addAndGet(H2ControlFrameBudget.REFILL_NANOS / 2);
    assertThat(spendAll()).isEqualTo(1);
  }

  @Test
  void theRefillStopsAtTheBurst() {
    spendAll();
    now.addAndGet(1_000 * H2ControlFrameBudget.REFILL_NANOS);
    assertThat(spendAll()).isEqualTo(H2ControlFrameBudget.BURST);
  }

  @Test
  void keepAlivePingsSecondsApartNeverRunOut() {
    for (int i = 0; i < 10_000; i++) {
      assertThat(budget.spend()).isTrue();
      now.addAndGet(1_000_000_000L);
    }
  }

  @Test
  void anAnswerPaysForTheNextBurst() {
    // a gRPC client's bandwidth probes: a PING for each piece of data it receives
    for (int i = 0; i < 10_000; i++) {
      assertThat(budget.spend()).isTrue();
      budget.answered();
    }
    spendAll();
    budget.answered();
    assertThat(spendAll()).isEqualTo(H2ControlFrameBudget.BURST);
  }
}
