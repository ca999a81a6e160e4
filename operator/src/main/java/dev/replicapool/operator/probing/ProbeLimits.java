package dev.replicapool.operator.probing;

/**
 * The prober's two load limits: probes in flight, all members together, and those among them that
 * must open a connection first. A probe beyond either is shed by the caller: no result, so no
 * failure, because an overloaded prober must not eject healthy members. Changed on the prober's
 * event loop only; {@link #inFlight()} may be read from any thread.
 */
final class ProbeLimits {
  private final int maxInFlight;
  private final int maxConnecting;
  private volatile int inFlight;
  private int connecting;

  ProbeLimits(int maxInFlight, int maxConnecting) {
    this.maxInFlight = maxInFlight;
    this.maxConnecting = maxConnecting;
  }

  /** Takes a place in flight (and one connecting, if it must connect); false when none is free. */
  boolean tryAcquire(boolean mustConnect) {
    if (inFlight >= maxInFlight || (mustConnect && connecting >= maxConnecting)) {
      return false;
    }
    inFlight++;
    if (mustConnect) {
      connecting++;
    }
    return true;
  }

  /** Gives back what {@link #tryAcquire} took, once per probe. */
  void release(boolean mustConnect) {
    inFlight--;
    if (mustConnect) {
      connecting--;
    }
  }

  int inFlight() {
    return inFlight;
  }

  int connecting() {
    return connecting;
  }
}
