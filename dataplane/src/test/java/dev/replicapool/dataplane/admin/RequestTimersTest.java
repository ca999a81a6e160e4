package dev.replicapool.dataplane.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class RequestTimersTest {
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final RequestTimers timers = new RequestTimers(registry);

  @Test
  void aStatusCountsInItsClass() {
    assertThat(RequestTimers.statusClass(200)).isEqualTo(2);
    assertThat(RequestTimers.statusClass(299)).isEqualTo(2);
    assertThat(RequestTimers.statusClass(504)).isEqualTo(5);
    assertThat(RequestTimers.statusClass(1099)).isEqualTo(0);
  }

  @Test
  void oneTimerPerPoolAndClassRemovedWithThePool() {
    timers.record("a/p", 200, 1_000_000);
    timers.record("a/p", 204, 1_000_000);
    timers.record("a/p", 503, 1_000_000);
    timers.record("a/q", 200, 1_000_000);

    assertThat(registry.get("replicapool.requests").tags("pool", "a/p", "code", "2xx").timer())
        .satisfies(t -> assertThat(t.count()).isEqualTo(2));
    assertThat(registry.get("replicapool.requests").tags("code", "5xx").timer().count())
        .isEqualTo(1);

    timers.removePool("a/p");

    assertThat(registry.find("replicapool.requests").timers())
        .singleElement()
        .satisfies(t -> assertThat(t.getId().getTag("pool")).isEqualTo("a/q"));
  }
}
