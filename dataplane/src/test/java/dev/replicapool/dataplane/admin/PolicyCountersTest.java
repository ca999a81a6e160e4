package dev.replicapool.dataplane.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class PolicyCountersTest {
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final PolicyCounters counters = new PolicyCounters(registry);

  void countEverything(String pool) {
    counters.retry(pool, "reset");
    counters.hedge(pool, "sent");
    counters.hedge(pool, "sent");
    counters.budgetExhausted(pool);
    counters.queue(pool, "overflow");
  }

  @Test
  void countsEachPoolAndOutcomeOnItsOwnCounter() {
    countEverything("a/p");
    counters.hedge("a/p", "won");

    assertThat(registry.get("replicapool.hedges").tags("pool", "a/p", "outcome", "sent").counter())
        .satisfies(c -> assertThat(c.count()).isEqualTo(2));
    assertThat(registry.get("replicapool.hedges").tags("outcome", "won").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("replicapool.retries").tags("reason", "reset").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("replicapool.retry.budget.exhausted").counter().getId().getTags())
        .hasSize(1);
    assertThat(registry.get("replicapool.queue").tags("outcome", "overflow").counter().count())
        .isEqualTo(1);
  }

  @Test
  void removingAPoolRemovesItsCountersOnlyNotThoseOfAPoolWhoseNameItStarts() {
    countEverything("a/p");
    countEverything("a/p2");
    int both = registry.getMeters().size();

    counters.removePool("a/p");

    assertThat(registry.getMeters()).hasSize(both / 2);
    assertThat(registry.getMeters())
        .allSatisfy(m -> assertThat(m.getId().getTag("pool")).isEqualTo("a/p2"));
  }
}
