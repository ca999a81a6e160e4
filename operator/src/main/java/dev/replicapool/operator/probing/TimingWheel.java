package dev.replicapool.operator.probing;

/**
 * A hashed timing wheel (Varghese and Lauck): O(1) schedule and cancel, one pass over a slot per
 * tick. Not thread-safe: it lives on the prober's event loop. A task never runs before its deadline
 * and at most one tick after the {@link #advance} call that follows it.
 */
final class TimingWheel {

  /** A scheduled task; cancelling it is O(1) and lazy. */
  static final class Timeout {
    private final Runnable task;
    private final long tick;
    private Timeout next;
    private boolean cancelled;

    private Timeout(Runnable task, long tick) {
      this.task = task;
      this.tick = tick;
    }

    void cancel() {
      cancelled = true;
    }

    boolean isCancelled() {
      return cancelled;
    }
  }

  private final long tickMillis;
  private final Timeout[] slots;
  private final int mask;
  private long currentTick;
  private int size;

  /**
   * @param slots rounded up to a power of two; a rotation spans slots x tickMillis, longer delays
   *     wait whole rotations in their slot
   */
  TimingWheel(long tickMillis, int slots, long startMillis) {
    if (tickMillis < 1 || slots < 1) {
      throw new IllegalArgumentException("tickMillis and slots must be positive");
    }
    int n = Integer.highestOneBit(Math.max(1, slots - 1)) << 1;
    this.tickMillis = tickMillis;
    this.slots = new Timeout[n];
    this.mask = n - 1;
    this.currentTick = Math.floorDiv(startMillis, tickMillis);
  }

  long tickMillis() {
    return tickMillis;
  }

  /** Entries held, cancelled ones included until their slot is visited. */
  int size() {
    return size;
  }

  /** Runs {@code task} at the first tick at or after {@code deadlineMillis}, never this tick. */
  Timeout schedule(Runnable task, long deadlineMillis) {
    long tick = Math.max(-Math.floorDiv(-deadlineMillis, tickMillis), currentTick + 1);
    Timeout t = new Timeout(task, tick);
    int idx = (int) (tick & mask);
    t.next = slots[idx];
    slots[idx] = t;
    size++;
    return t;
  }

  /** Runs every task whose tick has come by {@code nowMillis}; returns how many ran. */
  int advance(long nowMillis) {
    long target = Math.floorDiv(nowMillis, tickMillis);
    int ran = 0;
    while (currentTick < target) {
      currentTick++;
      int idx = (int) (currentTick & mask);
      Timeout t = slots[idx];
      slots[idx] = null;
      while (t != null) {
        Timeout next = t.next;
        if (t.cancelled) {
          size--;
        } else if (t.tick <= currentTick) {
          size--;
          ran++;
          try {
            t.task.run();
          } catch (RuntimeException e) {
            // One failing task must not lose the rest of the slot.
            Thread.currentThread()
                .getUncaughtExceptionHandler()
                .uncaughtException(Thread.currentThread(), e);
          }
        } else {
          t.next = slots[idx];
          slots[idx] = t;
        }
        t = next;
      }
    }
    return ran;
  }
}
