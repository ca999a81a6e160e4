package dev.replicapool.operator.reconciler;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/** The operator's clock as a test moves it: it stands still until told to step. */
final class StepClock extends Clock {
  private final AtomicLong now;

  StepClock(long startMillis) {
    now = new AtomicLong(startMillis);
  }

  void step(long millis) {
    now.addAndGet(millis);
  }

  @Override
  public long millis() {
    return now.get();
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
