package dev.replicapool.operator.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LeaseTrackerTest {
  static final long T0 = 1_800_000_000_000L;
  final AtomicLong now = new AtomicLong(T0);
  final LeaseTracker tracker = new LeaseTracker(now::get);

  static Lease renewedAt(long millis) {
    return new LeaseBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName("replica-1")
        .endMetadata()
        .withNewSpec()
        .withRenewTime(ZonedDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC))
        .endSpec()
        .build();
  }

  @Test
  void firstSightTrustsRenewTimeButNeverTheFuture() {
    assertThat(tracker.lastRenewalMillis(renewedAt(T0 - 5_000))).isEqualTo(T0 - 5_000);
    LeaseTracker other = new LeaseTracker(now::get);
    assertThat(other.lastRenewalMillis(renewedAt(T0 + 5_000))).isEqualTo(T0);
  }

  @Test
  void aRenewalSeenAfterTheWatchDelayCountsFromItsRenewTime() {
    tracker.observe(renewedAt(T0 - 300));
    now.set(T0 + 15);
    tracker.observe(renewedAt(T0));
    assertThat(tracker.lastRenewalMillis(renewedAt(T0))).isEqualTo(T0);
  }

  @Test
  void aRenewTimeTooOldOrInTheFutureIsSkewAndCountsFromWhenItWasSeen() {
    tracker.observe(renewedAt(T0 - 300));
    // The replica's clock is 2 s behind: the renewal is fresh, whatever its renewTime says.
    now.set(T0 + 2_000);
    tracker.observe(renewedAt(T0));
    assertThat(tracker.lastRenewalMillis(renewedAt(T0))).isEqualTo(T0 + 2_000);
    // 2 s ahead: counted from when it was seen, not from the future.
    now.set(T0 + 3_000);
    tracker.observe(renewedAt(T0 + 5_000));
    assertThat(tracker.lastRenewalMillis(renewedAt(T0 + 5_000))).isEqualTo(T0 + 3_000);
  }

  @Test
  void theSameRenewalSeenAgainDoesNotMoveIt() {
    tracker.observe(renewedAt(T0 - 300));
    now.set(T0 + 10);
    tracker.observe(renewedAt(T0));
    now.set(T0 + 500);
    tracker.observe(renewedAt(T0)); // a resync delivers the same Lease again
    assertThat(tracker.lastRenewalMillis(renewedAt(T0))).isEqualTo(T0);
  }
}
