package dev.replicapool.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BackoffTest {
  /** A Random whose nextDouble() returns the given values in turn. */
  static Random scripted(double... values) {
    return new Random() {
      int i;

      @Override
      public double nextDouble() {
        return values[i++ % values.length];
      }
    };
  }

  @Test
  void doublesFromInitialUpToMaxWithoutJitterAtMidpoint() {
    Backoff b = new Backoff(100, 5_000, 0.2, scripted(0.5));
    List<Long> delays = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      delays.add(b.nextDelayMillis());
    }
    assertThat(delays).containsExactly(100L, 200L, 400L, 800L, 1600L, 3200L, 5000L, 5000L, 5000L);
  }

  @Test
  void jitterStaysWithinTwentyPercent() {
    Backoff low = new Backoff(100, 5_000, 0.2, scripted(0.0));
    Backoff high = new Backoff(100, 5_000, 0.2, scripted(0.999999));
    assertThat(low.nextDelayMillis()).isEqualTo(80);
    assertThat(high.nextDelayMillis()).isEqualTo(120);
    Backoff random = new Backoff(100, 5_000, 0.2, new Random(7));
    for (int i = 0; i < 6; i++) {
      random.nextDelayMillis();
    }
    for (int i = 0; i < 100; i++) {
      assertThat(random.nextDelayMillis()).isBetween(4_000L, 6_000L);
    }
  }

  @Test
  void resetStartsOver() {
    Backoff b = new Backoff(100, 5_000, 0.2, scripted(0.5));
    b.nextDelayMillis();
    b.nextDelayMillis();
    b.reset();
    assertThat(b.nextDelayMillis()).isEqualTo(100);
  }

  @Test
  void rejectsNonsense() {
    assertThatThrownBy(() -> new Backoff(0, 10, 0.1, new Random()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Backoff(10, 5, 0.1, new Random()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Backoff(10, 50, 1.0, new Random()))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
