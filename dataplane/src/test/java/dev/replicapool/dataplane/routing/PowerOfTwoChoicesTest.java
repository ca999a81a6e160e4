package dev.replicapool.dataplane.routing;

import static dev.replicapool.dataplane.routing.Fixtures.endpoint;
import static dev.replicapool.dataplane.routing.Fixtures.member;
import static dev.replicapool.dataplane.routing.Fixtures.scripted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.replicapool.api.v1alpha1.RoutingPolicy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PowerOfTwoChoicesTest {
  final Fixtures.FakeClock clock = new Fixtures.FakeClock();

  @Test
  void drawsTwoDistinctMembersByWeight() {
    Endpoint a = endpoint("a", 0.5, clock);
    Endpoint b = endpoint("b", 0.25, clock);
    Endpoint c = endpoint("c", 0.25, clock);
    // Equal latency and load: the first draw wins the tie.
    // r=0.1 of 1.0 -> a; then among b,c (total 0.5) r=0.9 -> c: a and c compared, a wins.
    assertThat(new PowerOfTwoChoices(scripted(0.1, 0.9)).pick(List.of(a, b, c), clock.now))
        .isSameAs(a);
    // r=0.6 -> b (0.5..0.75); second among a,c (total 0.75) r=0.1 -> a.
    assertThat(new PowerOfTwoChoices(scripted(0.6, 0.1)).pick(List.of(a, b, c), clock.now))
        .isSameAs(b);
    // r=0.8 -> c.
    assertThat(new PowerOfTwoChoices(scripted(0.8, 0.1)).pick(List.of(a, b, c), clock.now))
        .isSameAs(c);
  }

  @Test
  void prefersLowerLatencyTimesInflightPlusOne() {
    Endpoint fast = endpoint("fast", 1.0, clock);
    Endpoint slow = endpoint("slow", 1.0, clock);
    fast.latency.observe(10, clock.now); // below the initial 100: blended, elapsed 0 keeps 100
    assertThat(fast.latency.value(clock.now)).isEqualTo(100);
    clock.advanceMillis(600_000);
    fast.latency.observe(10, clock.now); // ten minutes later the old value has decayed away
    slow.latency.observe(200, clock.now);
    PowerOfTwoChoices p2c = new PowerOfTwoChoices(scripted(0.9, 0.9)); // draws slow, then fast
    assertThat(PeakEwmaLoad.INSTANCE.of(fast, clock.now)).isCloseTo(10, within(0.01));
    assertThat(PeakEwmaLoad.INSTANCE.of(slow, clock.now)).isCloseTo(200, within(0.01));
    assertThat(p2c.pick(List.of(fast, slow), clock.now)).isSameAs(fast);

    // 20 requests in flight on the fast one: 10 x 21 = 210 > 200 x 1.
    for (int i = 0; i < 20; i++) {
      fast.acquire();
    }
    assertThat(p2c.pick(List.of(fast, slow), clock.now)).isSameAs(slow);
    fast.release(); // 10 x 20 = 200: a tie goes to the first drawn, slow
    assertThat(p2c.pick(List.of(fast, slow), clock.now)).isSameAs(slow);
    fast.release(); // 10 x 19 = 190 < 200
    assertThat(p2c.pick(List.of(fast, slow), clock.now)).isSameAs(fast);
  }

  @Test
  void aMemberThatFailsFastIsNotMistakenForAFastOne() {
    PoolRouter r =
        Fixtures.router(
            RoutingPolicy.Adaptive,
            new OutlierPolicy(0, 1000, 30_000, 50),
            clock,
            new Random(3),
            member("good", 1.0),
            member("fails", 1.0));
    Endpoint good = r.endpoints().get(0);
    Endpoint fails = r.endpoints().get(1);
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 200; i++) {
      clock.advanceMillis(5);
      Endpoint e = r.pick(Set.of());
      counts.merge(e.host(), 1, Integer::sum);
      if (e == fails) {
        r.failure(e, 1_000_000); // fails within 1 ms
      } else {
        r.success(e, 50_000_000); // answers in 50 ms
      }
    }
    // One failure costs 1 s of latency; the failing member only sees the odd request.
    assertThat(counts.getOrDefault("fails", 0)).isLessThan(10);
    assertThat(good.latency.value(clock.now)).isLessThan(100);
  }

  @Test
  void aMemberThatStopsAnsweringStopsGettingRequestsAfterAHandful() {
    PoolRouter r =
        Fixtures.router(
            RoutingPolicy.Adaptive,
            OutlierPolicy.DEFAULT,
            clock,
            new Random(5),
            member("a", 1.0),
            member("b", 1.0),
            member("hangs", 1.0));
    Endpoint hangs = r.endpoints().get(2);
    int sentToHanging = 0;
    for (int i = 0; i < 300; i++) {
      clock.advanceMillis(1);
      Endpoint e = r.pick(Set.of());
      e.acquire();
      if (e == hangs) {
        sentToHanging++; // never answers: stays in flight
      } else {
        r.success(e, 20_000_000);
        e.release();
      }
    }
    assertThat(sentToHanging).isLessThanOrEqualTo(8);
  }

  @Test
  void peakEwmaJumpsUpAtOnceAndDecaysWithTau() {
    PeakEwma ewma = new PeakEwma(10_000, 100, 0);
    assertThat(ewma.value(0)).isEqualTo(100);
    ewma.observe(500, 0);
    assertThat(ewma.value(0)).isEqualTo(500); // peak: at once
    ewma.observe(10, 0);
    assertThat(ewma.value(0)).isEqualTo(500); // no time elapsed: a lower sample weighs nothing
    long tenSeconds = 10_000_000_000L;
    ewma.observe(10, tenSeconds); // w = e^-1: 500 x 0.368 + 10 x 0.632
    assertThat(ewma.value(tenSeconds))
        .isCloseTo(500 * Math.exp(-1) + 10 * (1 - Math.exp(-1)), within(1e-6));
    double v = ewma.value(tenSeconds);
    assertThat(ewma.value(2 * tenSeconds)).isCloseTo(v * Math.exp(-1), within(1e-6)); // idle decay
  }
}
