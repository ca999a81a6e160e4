package dev.replicapool.e2e;

import dev.replicapool.testing.HostHttp;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Requests sent at a steady rate by a few threads, each on a new connection, through a data plane
 * Service while a test disrupts the cluster. It counts what failed (an error status, a reset, a
 * timeout) and which replica answered. Bounded: it stops by itself after {@code maxDuration}.
 *
 * <p>Paced (25 requests a second a thread) rather than flat out: from one client address, new
 * connections as fast as possible cycle through the ephemeral ports faster than conntrack forgets a
 * closed connection (2 minutes), and a reused port then meets the old entry and waits for a SYN
 * retransmission, which is an artefact of the test client, not of what is tested.
 */
final class SteadyLoad implements AutoCloseable {
  record Summary(long ok, long failed, Duration took, long maxMillis, List<String> firstFailures) {
    double perSecond() {
      return (ok + failed) * 1000.0 / Math.max(1, took.toMillis());
    }

    @Override
    public String toString() {
      return String.format(
          "%d requests in %.1f s (%.0f/s), %d failed, slowest %d ms%s",
          ok + failed,
          took.toMillis() / 1000.0,
          perSecond(),
          failed,
          maxMillis,
          firstFailures.isEmpty() ? "" : ", first failures " + firstFailures);
    }
  }

  private final InetSocketAddress to;
  private final String host;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final LongAdder ok = new LongAdder();
  private final LongAdder failed = new LongAdder();
  private final AtomicLong maxMillis = new AtomicLong();
  private final List<String> failures = new ArrayList<>();
  private final Map<String, Long> firstSeen = new ConcurrentHashMap<>();
  private final List<Thread> threads = new ArrayList<>();
  private final long startNanos = System.nanoTime();
  private final long deadlineNanos;
  private static final long PACE_NANOS = 40_000_000;

  SteadyLoad(InetSocketAddress to, String host, int threads, Duration maxDuration) {
    this.to = to;
    this.host = host;
    this.deadlineNanos = startNanos + maxDuration.toNanos();
    for (int i = 0; i < threads; i++) {
      int id = i;
      Thread t = new Thread(() -> loop(id), "steady-load-" + i);
      t.setDaemon(true);
      this.threads.add(t);
      t.start();
    }
  }

  private void loop(int id) {
    long n = 0;
    long next = System.nanoTime();
    while (running.get() && System.nanoTime() < deadlineNanos) {
      next += PACE_NANOS;
      LockSupport.parkNanos(next - System.nanoTime());
      long t0 = System.nanoTime();
      String what;
      try {
        HostHttp.Reply r = HostHttp.get(to, host, "/track/" + id + "-" + n++);
        what = r.status() == 200 ? null : "status " + r.status() + " " + r.body().strip();
        r.header("x-replica").ifPresent(name -> firstSeen.putIfAbsent(name, System.nanoTime()));
      } catch (Exception e) {
        what = e.toString();
      }
      long millis = (System.nanoTime() - t0) / 1_000_000;
      maxMillis.accumulateAndGet(millis, Math::max);
      if (what == null) {
        ok.increment();
      } else {
        failed.increment();
        synchronized (failures) {
          if (failures.size() < 5) {
            failures.add(what);
          }
        }
      }
    }
  }

  /** When (System.nanoTime) the replica of this name first answered, or null. */
  Long firstAnswerNanos(String replica) {
    return firstSeen.get(replica);
  }

  long okSoFar() {
    return ok.sum();
  }

  Summary stop() {
    running.set(false);
    for (Thread t : threads) {
      try {
        t.join(15_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (failures) {
      return new Summary(
          ok.sum(),
          failed.sum(),
          Duration.ofNanos(System.nanoTime() - startNanos),
          maxMillis.get(),
          List.copyOf(failures));
    }
  }

  @Override
  public void close() {
    stop();
  }
}
