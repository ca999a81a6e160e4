package dev.replicapool.dataplane.policy;

import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * How many retries and hedges a pool may add: at most {@code percent} of its requests over the last
 * ten seconds, and never fewer than {@code minPerSecond} per second of that window. The floor is a
 * floor, not an addition, so that a pool whose members all fail sends at most {@code 1 + percent}
 * tries per request once its load is above {@code minPerSecond * 100 / percent} requests/s.
 *
 * <p>Counted in one-second slots that roll over as the clock moves; shared by the event loops of
 * one data plane, hence synchronized (one short critical section per request).
 */
public final class RetryBudgetWindow {
  static final int SLOTS = 10;
  private static final long SLOT_NANOS = 1_000_000_000L;

  private final int percent;
  private final int minPerSecond;
  private final LongSupplier clock;
  private final long[] slotSecond = new long[SLOTS];
  private final long[] deposits = new long[SLOTS];
  private final long[] withdrawals = new long[SLOTS];

  public RetryBudgetWindow(int percent, int minPerSecond, LongSupplier clock) {
    this.percent = Math.max(0, Math.min(100, percent));
    this.minPerSecond = Math.max(0, minPerSecond);
    this.clock = clock;
    Arrays.fill(slotSecond, Long.MIN_VALUE);
  }

  public int percent() {
    return percent;
  }

  public int minPerSecond() {
    return minPerSecond;
  }

  /** A request arrived: it earns the pool a share of a retry. */
  public synchronized void deposit() {
    deposits[slot()]++;
  }

  /** Takes one retry or hedge from the budget; false when it is spent. */
  public synchronized boolean tryWithdraw() {
    int now = slot();
    long in = 0;
    long out = 0;
    for (int i = 0; i < SLOTS; i++) {
      in += deposits[i];
      out += withdrawals[i];
    }
    long allowed = Math.max(in * percent / 100, (long) minPerSecond * SLOTS);
    if (out >= allowed) {
      return false;
    }
    withdrawals[now]++;
    return true;
  }

  /** The slot of the current second; slots of seconds that left the window are emptied. */
  private int slot() {
    long second = Math.floorDiv(clock.getAsLong(), SLOT_NANOS);
    int i = (int) Math.floorMod(second, SLOTS);
    if (slotSecond[i] != second) {
      for (int j = 0; j < SLOTS; j++) {
        if (j == i || slotSecond[j] <= second - SLOTS) {
          deposits[j] = 0;
          withdrawals[j] = 0;
          slotSecond[j] = j == i ? second : Long.MIN_VALUE;
        }
      }
    }
    return i;
  }
}
