package dev.replicapool.dataplane.forward;

import java.util.function.LongSupplier;

/**
 * How many frames of one kind a client connection may send that no answer of ours pays for: PING
 * and SETTINGS ({@link #controlFrames}), and streams reset in the read that opened them ({@link
 * #prematureResets}).
 *
 * <p>PING and SETTINGS: Each one costs the data plane an acknowledgement, and a flood of them (a
 * million PINGs in one burst) is read in 64 KB turns of its event loop, 3,800 PINGs each, while the
 * other connections of that loop wait: before this budget, a client flooding PINGs held a
 * well-behaved client's answers on the same event loop for 235 ms, until Netty's
 * queued-acknowledgement limit closed it some 350,000 PINGs in.
 *
 * <p>A connection starts with {@link #BURST} frames and earns one back every {@link #REFILL_NANOS},
 * up to the burst: a client's keep-alive PINGs (seconds apart) never run out. Every HEADERS or DATA
 * frame the data plane sends fills it up again: a gRPC client measures its download's bandwidth
 * with a PING each time data arrives (BDP probing), and those PINGs come as often as our answers
 * do. A client past the budget is attacking: its connection is closed with ENHANCE_YOUR_CALM.
 * (gRPC's servers count PINGs between their own data frames the same way, to find clients that ping
 * too often.)
 *
 * <p>One per connection, on its event loop; the clock is in nanoseconds.
 */
final class H2ControlFrameBudget {
  /** Frames a client may send in a row with no answer between them. */
  static final int BURST = 100;

  /** One frame earned back per this long: ten a second. */
  static final long REFILL_NANOS = 100_000_000L;

  private final LongSupplier clock;
  private int left = BURST;
  private long lastRefill;

  H2ControlFrameBudget(LongSupplier clock) {
    this.clock = clock;
  }

  /** The PING and SETTINGS frames of a connection. */
  static H2ControlFrameBudget controlFrames(LongSupplier clock) {
    return new H2ControlFrameBudget(clock);
  }

  /**
   * The streams a connection's client resets in the same read as it opened them (rapid reset,
   * CVE-2023-44487: HEADERS and RST_STREAM back to back, thousands to a read). Such a stream
   * reaches no member ({@link H2StreamRouter}), but each still costs the event loop a stream and
   * its HPACK decoding: one connection doing nothing else held a well-behaved client's answers on
   * the same event loop at 30 ms (p50) for as long as it went on. A client cancelling its own calls
   * (a gRPC deadline) resets them in a later read, once they went out, and so never spends from it;
   * Netty's own count (200 resets in 30 s, off) counted those and closed such clients.
   */
  static H2ControlFrameBudget prematureResets(LongSupplier clock) {
    return new H2ControlFrameBudget(clock);
  }

  /** A frame it counts came: false when the budget is spent. */
  boolean spend() {
    long now = clock.getAsLong();
    if (left < BURST) {
      long earned = (now - lastRefill) / REFILL_NANOS;
      if (earned > 0) {
        left = (int) Math.min(BURST, left + earned);
        lastRefill += earned * REFILL_NANOS;
      }
    }
    if (left == 0) {
      return false;
    }
    if (left == BURST) {
      lastRefill = now; // earning starts with the first frame spent from a full budget
    }
    left--;
    return true;
  }

  /** The data plane sent the client HEADERS or DATA: the client's next frames are paid for. */
  void answered() {
    left = BURST;
  }
}
