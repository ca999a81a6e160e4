package dev.replicapool.dataplane.listen;

import io.netty.channel.Channel;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many client connections may be open at once, all traffic ports together (HAProxy's {@code
 * maxconn}, Envoy's listener connection limit): one more is closed as soon as it is accepted,
 * before a byte of it is read or a TLS handshake begins, and counted.
 */
final class ClientGate {
  private final int max;
  private final AtomicInteger open = new AtomicInteger();
  private final LongAdder refused = new LongAdder();

  /**
   * @param max connections open at once; 0 means no limit
   */
  ClientGate(int max) {
    this.max = max;
  }

  /** Admits a just-accepted connection, or closes it; false when closed. */
  boolean admit(Channel ch) {
    if (open.incrementAndGet() > max && max > 0) {
      open.decrementAndGet();
      refused.increment();
      ch.close();
      return false;
    }
    ch.closeFuture().addListener(f -> open.decrementAndGet());
    return true;
  }

  int open() {
    return open.get();
  }

  long refused() {
    return refused.sum();
  }
}
