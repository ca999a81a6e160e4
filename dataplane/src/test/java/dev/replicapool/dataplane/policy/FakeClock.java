package dev.replicapool.dataplane.policy;

import java.util.function.LongSupplier;

/** A clock the test moves by hand, in nanoseconds. */
final class FakeClock implements LongSupplier {
  long now = 5_000_000_000L;

  @Override
  public long getAsLong() {
    return now;
  }

  void advanceMillis(long millis) {
    now += millis * 1_000_000L;
  }
}
