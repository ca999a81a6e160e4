package dev.replicapool.dataplane.admin;

import java.time.Duration;

/**
 * The histogram buckets of the data plane's latency timers, shared by {@link RequestTimers} (client
 * requests) and {@link MemberMeters} (tries on members) so that the two can be compared bucket by
 * bucket.
 */
final class LatencyBuckets {
  static final Duration[] BOUNDS = {
    Duration.ofMillis(1),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5)
  };

  private LatencyBuckets() {}
}
