package dev.replicapool.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CapacityTest {
  private final AtomicLong now = new AtomicLong(1_000);

  private void advanceMillis(long ms) {
    now.addAndGet(ms * 1_000_000);
  }

  @Test
  void beyondWorkersRequestsWaitInFifoOrder() {
    Capacity c = new Capacity(now::get, 2, 20);
    List<Integer> granted = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      int n = i;
      c.acquire(() -> granted.add(n));
    }
    assertThat(granted).containsExactly(0, 1);
    assertThat(c.queued()).isEqualTo(2);
    c.release();
    assertThat(granted).containsExactly(0, 1, 2);
    c.set(5, 20);
    assertThat(granted).containsExactly(0, 1, 2, 3);
    assertThat(c.queued()).isZero();
  }

  @Test
  void utilizationIsTheBusyShareOfWorkerTimeOverTheWindow() {
    Capacity c = new Capacity(now::get, 2, 0);
    c.acquire(() -> {});
    advanceMillis(1_000);
    assertThat(c.utilization()).isCloseTo(0.5, within(0.01));
    c.acquire(() -> {});
    advanceMillis(1_000);
    assertThat(c.utilization()).isCloseTo(1.0, within(0.01));
    c.release();
    c.release();
    advanceMillis(2_000);
    assertThat(c.utilization()).isZero();
    assertThat(c.orcaText())
        .isEqualTo(
            "TEXT application_utilization=0.0000, cpu_utilization=0.0000, rps_fractional=0.0,"
                + " named_metrics.in_flight=0");
  }

  @Test
  void demandShowsAQueueAsItFormsWhereTheWindowedShareCannot() {
    Capacity c = new Capacity(now::get, 2, 0);
    assertThat(c.demand()).isZero();
    c.acquire(() -> {});
    assertThat(c.demand()).as("one of two workers busy this instant").isEqualTo(0.5);
    c.acquire(() -> {});
    c.acquire(() -> {});
    c.acquire(() -> {});
    assertThat(c.utilization()).as("no time has passed: the window saw nothing").isZero();
    assertThat(c.demand()).as("two busy and two waiting, for two workers").isEqualTo(2.0);
    assertThat(c.orcaText())
        .startsWith("TEXT application_utilization=2.0000, cpu_utilization=0.0000")
        .as("the requests it holds, every client's")
        .endsWith(", named_metrics.in_flight=4");
    advanceMillis(1_000);
    c.release();
    c.release();
    c.release();
    c.release();
    assertThat(c.demand())
        .as("idle now, but busy over the window: the window's share")
        .isCloseTo(c.utilization(), within(1e-9))
        .isCloseTo(1.0, within(0.01));
  }

  @Test
  void reportsAnswersPerSecondInOrcaTextForm() {
    Capacity c = new Capacity(now::get, 1, 0);
    advanceMillis(1_000);
    for (int i = 0; i < 10; i++) {
      c.acquire(() -> {});
      advanceMillis(50);
      c.release();
    }
    assertThat(c.orcaText())
        .matches(
            "TEXT application_utilization=0\\.[0-9]{4}, cpu_utilization=0\\.[0-9]{4},"
                + " rps_fractional=[0-9]+\\.[0-9], named_metrics.in_flight=0");
    assertThat(c.utilization()).isCloseTo(0.5, within(0.06));
  }

  @Test
  void answersHaproxysAgentCheckWithTheIdleShareAsAWeight() {
    Capacity c = new Capacity(now::get, 4, 0);
    assertThat(c.agentReply()).isEqualTo("100%\n");
    c.acquire(() -> {});
    advanceMillis(1_000);
    assertThat(c.agentReply()).as("one of four workers busy").isEqualTo("75%\n");
    for (int i = 0; i < 3; i++) {
      c.acquire(() -> {});
    }
    advanceMillis(2_000);
    assertThat(c.agentReply()).as("all busy: still in rotation").isEqualTo("1%\n");
  }

  @Test
  void aBatchJobHoldsWorkersBeforeQueuedRequestsAndCountsInTheLoad() {
    Capacity c = new Capacity(now::get, 4, 0);
    List<Integer> granted = new ArrayList<>();
    c.acquire(() -> granted.add(0));
    c.acquire(() -> granted.add(1));
    c.batchJob(3);
    assertThat(c.batchJob()).isEqualTo(3);
    c.acquire(() -> granted.add(2));
    assertThat(granted).as("the job took the two free workers").containsExactly(0, 1);
    c.release();
    assertThat(granted)
        .as("the freed worker went to the job, not to the queue")
        .containsExactly(0, 1);
    c.release();
    assertThat(granted)
        .as("the job holds its 3: the fourth serves the queue")
        .containsExactly(0, 1, 2);
    c.release();
    advanceMillis(1_000);
    assertThat(c.utilization()).as("the job's 3 of 4 workers").isCloseTo(0.75, within(0.01));

    c.batchJob(1);
    c.acquire(() -> granted.add(3));
    c.acquire(() -> granted.add(4));
    c.acquire(() -> granted.add(5));
    assertThat(granted).as("lowered: three workers for requests").containsExactly(0, 1, 2, 3, 4, 5);
    c.batchJob(0);
    assertThat(c.queued()).isZero();
  }

  @Test
  void aBatchJobLeavesAtLeastOneWorkerForRequests() {
    Capacity c = new Capacity(now::get, 4, 0);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> c.batchJob(4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("busy workers must be 0 to 3");
    c.batchJob(2);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> c.set(2, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("above the batch job's 2");
    assertThat(c.workers()).isEqualTo(4);
    c.set(8, 0);
    advanceMillis(1_000);
    assertThat(c.utilization()).isCloseTo(0.25, within(0.01));
  }
}
