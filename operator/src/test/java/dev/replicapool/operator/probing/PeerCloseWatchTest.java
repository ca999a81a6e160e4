package dev.replicapool.operator.probing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Which closes of probe connections deserve a probe, close by close, on a fake clock. */
class PeerCloseWatchTest {
  private static final long IDLE = 60_000;
  private final AtomicLong now = new AtomicLong(1_000_000);
  private PeerCloseWatch watch;

  @BeforeEach
  void newWatch() {
    watch = new PeerCloseWatch(now::get, IDLE);
  }

  private static final class Probed {
    final PeerCloseWatch.Member member;
    final AtomicInteger told = new AtomicInteger();

    Probed(String name) {
      member = new PeerCloseWatch.Member(new MemberKey("ns/pool", name));
    }
  }

  /** The member sent a probe on {@code connection} and it was answered as {@code closes} says. */
  private void probe(Probed m, Object connection, boolean announcesClose) {
    watch.watch(m.member, connection, m.told::incrementAndGet);
    watch.answered(m.member, connection, announcesClose);
  }

  @Test
  void anUnannouncedCloseAfterAnAnswerTellsTheMemberOnce() {
    Probed m = new Probed("m");
    Object c = new Object();
    probe(m, c, false);
    now.addAndGet(150);
    watch.closed(c);
    watch.closed(c);
    assertThat(m.told).hasValue(1);
    assertThat(watch.watchedConnections()).isZero();
  }

  @Test
  void aConnectionIsReportedNewOnceAndAgainAfterItClosed() {
    Probed m = new Probed("m");
    Probed other = new Probed("other");
    Object c = new Object();
    assertThat(watch.watch(m.member, c, () -> {})).isTrue();
    assertThat(watch.watch(m.member, c, () -> {})).isFalse();
    assertThat(watch.watch(other.member, c, () -> {})).isFalse();
    watch.closed(c);
    Object next = new Object();
    assertThat(watch.watch(m.member, next, () -> {})).isTrue();
  }

  @Test
  void anAnswerThatAnnouncesTheCloseMakesItExpected() {
    Probed m = new Probed("m");
    Object c = new Object();
    probe(m, c, true);
    watch.closed(c);
    assertThat(m.told).hasValue(0);

    // The expectation was the closed connection's; the next one is watched as usual.
    Object next = new Object();
    probe(m, next, false);
    watch.closed(next);
    assertThat(m.told).hasValue(1);
  }

  @Test
  void theProbersOwnResetIsExpectedByEveryMemberOnTheConnection() {
    Probed a = new Probed("a");
    Probed b = new Probed("b");
    Object shared = new Object();
    probe(a, shared, false);
    probe(b, shared, false);
    watch.expectClose(shared);
    watch.closed(shared);
    assertThat(a.told).hasValue(0);
    assertThat(b.told).hasValue(0);
  }

  @Test
  void expectingTheCloseOfAnUnwatchedConnectionKeepsNothing() {
    Object c = new Object();
    watch.expectClose(c);
    Probed m = new Probed("m");
    probe(m, c, false);
    watch.closed(c);
    assertThat(m.told).hasValue(1);
  }

  @Test
  void aCloseAroundTheClientsIdleTimeoutIsTheClients() {
    Probed m = new Probed("m");
    Object c = new Object();
    probe(m, c, false);
    now.addAndGet(IDLE - 500);
    watch.closed(c);
    assertThat(m.told).hasValue(0);

    Object next = new Object();
    probe(m, next, false);
    now.addAndGet(IDLE - 1_500);
    watch.closed(next);
    assertThat(m.told).as("well before the idle timeout").hasValue(1);
  }

  @Test
  void aCloseBeforeAnyAnswerIsUnexpected() {
    Probed m = new Probed("m");
    Object c = new Object();
    watch.watch(m.member, c, m.told::incrementAndGet);
    watch.closed(c);
    assertThat(m.told).hasValue(1);
  }

  @Test
  void aForgottenMemberIsNotToldAndWatchesNothingNew() {
    Probed m = new Probed("m");
    Object c = new Object();
    probe(m, c, false);
    watch.forget(m.member);
    watch.closed(c);
    assertThat(m.told).hasValue(0);
    assertThat(watch.watch(m.member, new Object(), m.told::incrementAndGet)).isFalse();
  }

  @Test
  void aMemberThatMovedToAnotherConnectionIgnoresTheOldOnesClose() {
    Probed m = new Probed("m");
    Object old = new Object();
    Object current = new Object();
    probe(m, old, false);
    probe(m, current, false);
    watch.closed(old);
    assertThat(m.told).hasValue(0);
    watch.closed(current);
    assertThat(m.told).hasValue(1);
  }

  @Test
  void aSharedConnectionsCloseTellsAFewOfItsMembers() {
    Object shared = new Object();
    List<Probed> members = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      Probed m = new Probed("m" + i);
      members.add(m);
      probe(m, shared, false);
    }
    watch.closed(shared);
    assertThat(members.stream().mapToInt(m -> m.told.get()).sum())
        .isEqualTo(PeerCloseWatch.MAX_TOLD_PER_CLOSE);
  }

  @Test
  void aMemberIsBelievedToCloseByDesignAfterThreePassingCloseTriggeredProbes() {
    Probed m = new Probed("m");
    for (int i = 0; i < PeerCloseWatch.FALSE_ALARMS_BEFORE_BY_DESIGN; i++) {
      Object c = new Object();
      probe(m, c, false);
      watch.closed(c);
      assertThat(m.member.closesByDesign()).isFalse();
      watch.closeTriggeredProbeResult(m.member, true);
    }
    assertThat(m.member.closesByDesign()).isTrue();
    assertThat(m.told).hasValue(PeerCloseWatch.FALSE_ALARMS_BEFORE_BY_DESIGN);

    Object c = new Object();
    probe(m, c, false);
    watch.closed(c);
    assertThat(m.told).hasValue(PeerCloseWatch.FALSE_ALARMS_BEFORE_BY_DESIGN);
  }

  @Test
  void aFailedCloseTriggeredProbeStartsTheCountAgain() {
    Probed m = new Probed("m");
    watch.closeTriggeredProbeResult(m.member, true);
    watch.closeTriggeredProbeResult(m.member, true);
    watch.closeTriggeredProbeResult(m.member, false); // a real death
    watch.closeTriggeredProbeResult(m.member, true);
    watch.closeTriggeredProbeResult(m.member, true);
    assertThat(m.member.closesByDesign()).isFalse();
    watch.closeTriggeredProbeResult(m.member, true);
    assertThat(m.member.closesByDesign()).isTrue();
  }
}
