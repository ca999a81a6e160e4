package dev.replicapool.operator.discovery;

import static dev.replicapool.operator.discovery.LeaseExpiry.Verdict.ALIVE;
import static dev.replicapool.operator.discovery.LeaseExpiry.Verdict.EXPIRED;
import static dev.replicapool.operator.discovery.LeaseExpiry.Verdict.UNCONFIRMED;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The expiry decision, one clock tick at a time: a 900 ms lease renewed every 300 ms, its renewals
 * seen when the test says, the watch's liveness sampled every 20 ms as the test says.
 */
class LeaseExpiryTest {
  static final long T0 = 1_800_000_000_000L;
  static final long LEASE = 900;
  final AtomicLong now = new AtomicLong(T0);
  final LeaseTracker tracker = new LeaseTracker(now::get);
  final LeaseWatch watch = new LeaseWatch();
  final LeaseExpiry expiry = new LeaseExpiry(tracker, watch);

  static Lease renewedAt(String name, long millis) {
    return new LeaseBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withRenewTime(ZonedDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC))
        .endSpec()
        .build();
  }

  /** Moves the clock to {@code to}, sampling the watch every 20 ms as {@code watching}. */
  void runTo(long to, boolean watching) {
    for (long t = now.get() + 20; t <= to; t += 20) {
      now.set(t);
      watch.sample(watching, t);
    }
    now.set(to);
    watch.sample(watching, to);
  }

  /** A renewal made and delivered by the watch now. */
  Lease renew(String name) {
    Lease l = renewedAt(name, now.get());
    tracker.observe(l);
    watch.eventDelivered(now.get());
    return l;
  }

  LeaseExpiry.Verdict judge(Lease l) {
    return expiry.judge(l, LEASE, now.get());
  }

  @Test
  void silenceWhileTheWatchIsLiveAndFlowingExpiresAtTheLeaseDuration() {
    runTo(T0 + 1_000, true);
    Lease dead = renew("dead");
    long lastRenewal = now.get();
    // Another member keeps renewing every 300 ms: the stream flows.
    for (int i = 1; i <= 3; i++) {
      runTo(lastRenewal + 300L * i, true);
      renew("alive");
    }
    runTo(lastRenewal + LEASE - 1, true);
    assertThat(judge(dead)).isEqualTo(ALIVE);
    runTo(lastRenewal + LEASE, true);
    assertThat(judge(dead)).isEqualTo(EXPIRED);
  }

  @Test
  void anExpiryStaysAFactWhenTheWatchBreaksAfterwardsUntilARenewal() {
    runTo(T0 + 1_000, true);
    Lease dead = renew("dead");
    long lastRenewal = now.get();
    runTo(lastRenewal + LEASE - 100, true);
    renew("alive");
    runTo(lastRenewal + LEASE, true);
    assertThat(judge(dead)).isEqualTo(EXPIRED);
    runTo(lastRenewal + LEASE + 500, false);
    assertThat(judge(dead)).isEqualTo(EXPIRED);
    // A renewal after all (the replica was only partitioned away): alive again.
    Lease back = renew("dead");
    assertThat(judge(back)).isEqualTo(ALIVE);
  }

  @Test
  void silenceDuringAWatchGapNeverExpires() {
    runTo(T0 + 1_000, true);
    Lease member = renew("member");
    long lastRenewal = now.get();
    // The watch is re-established: for 2 s nothing is heard, and nothing can be.
    runTo(lastRenewal + 100, true);
    for (long t = lastRenewal + 100; t <= lastRenewal + 2_100; t += 100) {
      runTo(t, false);
      assertThat(judge(member)).isNotEqualTo(EXPIRED);
    }
    assertThat(judge(member)).isEqualTo(UNCONFIRMED);
    // Live again, but it did not hear the gap: still unconfirmed, however long it has been live.
    runTo(lastRenewal + 5_000, true);
    watch.eventDelivered(now.get());
    assertThat(judge(member)).isEqualTo(UNCONFIRMED);
  }

  @Test
  void silenceOnAWatchThatDeliversNothingIsUnconfirmed() {
    // Live by its own account, but no event in the last third of the lease: it may be stalled.
    runTo(T0 + 1_000, true);
    Lease member = renew("member");
    long lastRenewal = now.get();
    runTo(lastRenewal + LEASE, true);
    assertThat(judge(member)).isEqualTo(UNCONFIRMED);
    watch.eventDelivered(lastRenewal + LEASE - LEASE / 3);
    assertThat(judge(member)).isEqualTo(EXPIRED);
  }

  @Test
  void aFreshReadShowingTheSameRenewalMakesTheExpiryAFact() {
    runTo(T0 + 1_000, true);
    Lease member = renew("member");
    long lastRenewal = now.get();
    runTo(lastRenewal + LEASE + 200, false);
    assertThat(judge(member)).isEqualTo(UNCONFIRMED);
    // A read sent before the lease was due proves nothing about its end.
    tracker.confirmFresh(member, renewedAt("member", lastRenewal), lastRenewal + LEASE - 1);
    assertThat(judge(member)).isEqualTo(UNCONFIRMED);
    tracker.confirmFresh(member, renewedAt("member", lastRenewal), now.get());
    assertThat(judge(member)).isEqualTo(EXPIRED);
  }

  @Test
  void aFreshReadOfAGoneLeaseMakesTheExpiryAFact() {
    runTo(T0 + 1_000, true);
    Lease member = renew("member");
    runTo(now.get() + LEASE, false);
    tracker.confirmFresh(member, null, now.get());
    assertThat(judge(member)).isEqualTo(EXPIRED);
  }

  @Test
  void aFreshReadShowingARenewalTheWatchMissedKeepsTheMember() {
    runTo(T0 + 1_000, true);
    Lease cached = renew("member");
    long lastRenewal = now.get();
    runTo(lastRenewal + LEASE, false);
    assertThat(judge(cached)).isEqualTo(UNCONFIRMED);
    // The registrar renewed 50 ms ago; the watch has not delivered it, the cache is older.
    tracker.confirmFresh(cached, renewedAt("member", now.get() - 50), now.get());
    assertThat(judge(cached)).isEqualTo(ALIVE);
    assertThat(expiry.dueMillis(cached, LEASE)).isEqualTo(now.get() - 50 + LEASE);
    // The stale cached copy is not taken for a renewal of its own.
    tracker.observe(cached);
    assertThat(expiry.dueMillis(cached, LEASE)).isEqualTo(now.get() - 50 + LEASE);
  }

  @Test
  void aMemberThatDiedDuringTheGapIsGoneAtTheFirstReadAfterItsLease() {
    runTo(T0 + 1_000, true);
    Lease cached = renew("member");
    long lastRenewal = now.get();
    runTo(lastRenewal + 100, false);
    // Its last renewal, 200 ms in, was never delivered; then it died.
    Lease last = renewedAt("member", lastRenewal + 200);
    runTo(lastRenewal + LEASE, false);
    tracker.confirmFresh(cached, last, now.get());
    assertThat(judge(cached)).isEqualTo(ALIVE);
    runTo(lastRenewal + 200 + 2 * LEASE, false);
    assertThat(judge(cached)).isEqualTo(UNCONFIRMED);
    tracker.confirmFresh(cached, last, now.get());
    assertThat(judge(cached)).isEqualTo(EXPIRED);
  }

  @Test
  void aRegistrarClockSkewCannotExpireALiveMember() {
    runTo(T0 + 1_000, true);
    renew("member");
    // The registrar's clock is 10 s behind: its renewTimes look long expired.
    for (int i = 1; i <= 5; i++) {
      runTo(now.get() + 300, true);
      Lease skewed = renewedAt("member", now.get() - 10_000);
      tracker.observe(skewed);
      watch.eventDelivered(now.get());
      assertThat(judge(skewed)).isEqualTo(ALIVE);
    }
  }
}
