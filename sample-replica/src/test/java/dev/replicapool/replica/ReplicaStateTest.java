package dev.replicapool.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReplicaStateTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final ReplicaState state = new ReplicaState(nanos::get);

  @Test
  void freezeCountsDownOnTheClockAndMakesTheLeaseUnhealthy() {
    state.freeze(1000);
    assertThat(state.isFrozen()).isTrue();
    assertThat(state.frozenForMillis()).isEqualTo(1000);
    assertThat(state.healthy()).isTrue();
    assertThat(state.leaseHealthy()).isFalse();

    nanos.addAndGet(999_500_000L);
    assertThat(state.frozenForMillis()).isEqualTo(1);
    nanos.addAndGet(500_000L);
    assertThat(state.isFrozen()).isFalse();
    assertThat(state.leaseHealthy()).isTrue();
  }

  @Test
  void freezeZeroAndResetEndAFreezeAndTellListeners() {
    AtomicInteger changes = new AtomicInteger();
    state.onFreezeChange(changes::incrementAndGet);
    state.freeze(5000);
    state.freeze(0);
    assertThat(state.isFrozen()).isFalse();
    state.freeze(5000);
    state.slow(10);
    state.errors(0.5);
    state.healthy(false);

    state.reset();

    assertThat(changes).hasValue(4);
    assertThat(state.isFrozen()).isFalse();
    assertThat(state.slowMillis()).isZero();
    assertThat(state.errorRate()).isZero();
    assertThat(state.healthy()).isTrue();
  }

  @Test
  void rejectsNonsense() {
    assertThatThrownBy(() -> state.slow(-1)).hasMessageContaining("between 0 and");
    assertThatThrownBy(() -> state.freeze(ReplicaState.MAX_MILLIS + 1))
        .hasMessageContaining("between 0 and");
    assertThatThrownBy(() -> state.errors(-0.1)).hasMessageContaining("between 0 and 1");
    assertThatThrownBy(() -> state.errors(Double.NaN)).hasMessageContaining("between 0 and 1");
  }

  @Test
  void jsonEscapesTheName() {
    assertThat(state.toJson("a\"b"))
        .startsWith("{\"replica\":\"a\\\"b\",\"healthy\":true,\"slowMillis\":0,\"errorRate\":0.0");
  }
}
