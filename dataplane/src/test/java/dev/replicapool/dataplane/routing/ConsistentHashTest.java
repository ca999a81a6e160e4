package dev.replicapool.dataplane.routing;

import static dev.replicapool.dataplane.routing.Fixtures.member;
import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.ConsistentHash;
import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The ConsistentHash policy through its router, keys as the forward layer computes them. */
class ConsistentHashTest {
  static final int KEYS = 10_000;
  final Fixtures.FakeClock clock = new Fixtures.FakeClock();

  static long key(int i) {
    return HashKey.hash("user-" + i);
  }

  static List<MemberSnapshot> five() {
    List<MemberSnapshot> m = new ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      m.add(member("k" + i, 1.0));
    }
    return m;
  }

  PoolRouter router(
      ConsistentHash.Algorithm algorithm, List<MemberSnapshot> members, PoolRouter previous) {
    RouterSettings s =
        RouterSettingsBuilder.builder()
            .policy(RoutingPolicy.ConsistentHash)
            .outlier(new OutlierPolicy(3, 1000, 30_000, 50))
            .ewmaTauMillis(10_000)
            .defaultLatencyMillis(100)
            .failurePenaltyMillis(1_000)
            .hash(new HashPolicy("x-user", null, null, false, algorithm))
            .build();
    PoolRouter r =
        PoolRouter.create(
            "ns/pool", s, members, previous, clock, new Random(7), EjectionEvents.NONE);
    r.activate();
    return r;
  }

  static String[] owners(PoolRouter r, Collection<Endpoint> tried) {
    String[] out = new String[KEYS];
    for (int i = 0; i < KEYS; i++) {
      Endpoint e = r.pick(tried, key(i));
      out[i] = e == null ? "-" : e.host();
    }
    return out;
  }

  static Map<String, Integer> counts(String[] owners) {
    Map<String, Integer> c = new HashMap<>();
    for (String o : owners) {
      c.merge(o, 1, Integer::sum);
    }
    return c;
  }

  @ParameterizedTest
  @EnumSource(ConsistentHash.Algorithm.class)
  void theTableGivesEveryMemberItsShare(ConsistentHash.Algorithm algorithm) {
    PoolRouter r = router(algorithm, five(), null);
    HashTable t = ((ConsistentHashBalancer) r.balancer()).table();
    int[] slots = new int[5];
    for (int s = 0; s < t.slots(); s++) {
      slots[t.member(s)]++;
    }
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (int n : slots) {
      min = Math.min(min, n);
      max = Math.max(max, n);
    }
    if (algorithm == ConsistentHash.Algorithm.Maglev) {
      assertThat(t.slots()).isEqualTo(65_537);
      assertThat(max - min).as("equal weights claim a slot each per round").isLessThanOrEqualTo(1);
    } else {
      assertThat(t.slots()).isEqualTo(5 * RingHashTable.POINTS);
      assertThat(max).isEqualTo(min); // points are per member; arcs are what varies
    }
  }

  @ParameterizedTest
  @EnumSource(ConsistentHash.Algorithm.class)
  void tenThousandKeysSpreadWithinTenPercent(ConsistentHash.Algorithm algorithm) {
    Map<String, Integer> c = counts(owners(router(algorithm, five(), null), Set.of()));
    assertThat(c).hasSize(5);
    int min = c.values().stream().mapToInt(Integer::intValue).min().orElseThrow();
    int max = c.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    assertThat((double) max / min).as("%s: %s", algorithm, c).isLessThanOrEqualTo(1.1);
  }

  @ParameterizedTest
  @EnumSource(ConsistentHash.Algorithm.class)
  void removingOneOfFiveRemapsAboutAFifth(ConsistentHash.Algorithm algorithm) {
    String[] before = owners(router(algorithm, five(), null), Set.of());
    String[] after = owners(router(algorithm, five().subList(0, 4), null), Set.of());
    int moved = 0;
    int movedOthers = 0;
    for (int i = 0; i < KEYS; i++) {
      if (!before[i].equals(after[i])) {
        moved++;
        if (!before[i].equals("k5")) {
          movedOthers++;
        }
      }
      assertThat(after[i]).isNotEqualTo("k5");
    }
    assertThat(moved).as("keys remapped").isBetween(KEYS / 10, KEYS / 4);
    assertThat(movedOthers).as("keys of members that stayed").isLessThan(KEYS / 20);
  }

  @ParameterizedTest
  @EnumSource(ConsistentHash.Algorithm.class)
  void weightsAreRespected(ConsistentHash.Algorithm algorithm) {
    List<MemberSnapshot> m =
        List.of(member("k1", 1.0), member("k2", 0.5), member("k3", 0.5), member("k4", 1.0));
    Map<String, Integer> c = counts(owners(router(algorithm, m, null), Set.of()));
    // Shares 1/3, 1/6, 1/6, 1/3 of 10,000.
    assertThat(c.get("k1")).isBetween(3000, 3667);
    assertThat(c.get("k4")).isBetween(3000, 3667);
    assertThat(c.get("k2")).isBetween(1500, 1834);
    assertThat(c.get("k3")).isBetween(1500, 1834);
  }

  @ParameterizedTest
  @EnumSource(ConsistentHash.Algorithm.class)
  void anUnhealthyMembersKeysMoveAndComeBackAndNoOtherKeyMoves(ConsistentHash.Algorithm algorithm) {
    PoolRouter healthy = router(algorithm, five(), null);
    String[] before = owners(healthy, Set.of());
    List<MemberSnapshot> sick = new ArrayList<>(five());
    sick.set(2, member("k3", 0.0, MemberState.Unhealthy));
    PoolRouter without = router(algorithm, sick, healthy);
    String[] during = owners(without, Set.of());
    for (int i = 0; i < KEYS; i++) {
      if (before[i].equals("k3")) {
        assertThat(during[i]).isNotEqualTo("k3");
      } else {
        assertThat(during[i]).as("key %d", i).isEqualTo(before[i]);
      }
    }
    assertThat(counts(during).keySet()).containsExactlyInAnyOrder("k1", "k2", "k4", "k5");
    assertThat(owners(router(algorithm, five(), without), Set.of())).containsExactly(before);
  }

  @ParameterizedTest
  @EnumSource(ConsistentHash.Algorithm.class)
  void anEjectedMembersKeysMoveUntilItIsBack(ConsistentHash.Algorithm algorithm) {
    PoolRouter r = router(algorithm, five(), null);
    String[] before = owners(r, Set.of());
    Endpoint k2 = r.endpoints().get(1);
    for (int i = 0; i < 3; i++) {
      r.failure(k2, 0);
    }
    assertThat(r.ejectedCount()).isEqualTo(1);
    String[] during = owners(r, Set.of());
    for (int i = 0; i < KEYS; i++) {
      assertThat(during[i]).isEqualTo(before[i].equals("k2") ? during[i] : before[i]);
      assertThat(during[i]).isNotEqualTo("k2");
    }
    clock.advanceMillis(1000);
    assertThat(owners(r, Set.of())).containsExactly(before);
  }

  @ParameterizedTest
  @EnumSource(ConsistentHash.Algorithm.class)
  void aRetryGoesToAMemberNotTriedYetTheSameOneOnEveryDataPlane(
      ConsistentHash.Algorithm algorithm) {
    PoolRouter a = router(algorithm, five(), null);
    List<MemberSnapshot> reversed = new ArrayList<>(five());
    java.util.Collections.reverse(reversed);
    PoolRouter b = router(algorithm, reversed, null); // another data plane, another order
    for (int i = 0; i < 200; i++) {
      Endpoint first = a.pick(Set.of(), key(i));
      Endpoint second = a.pick(Set.of(first), key(i));
      assertThat(second).isNotSameAs(first);
      Endpoint firstB = b.pick(Set.of(), key(i));
      assertThat(firstB.address()).isEqualTo(first.address());
      Endpoint secondB = b.pick(Set.of(firstB), key(i));
      assertThat(secondB.address()).isEqualTo(second.address());
    }
    assertThat(a.pick(List.copyOf(a.endpoints()), key(1))).isNull();
  }

  @ParameterizedTest
  @EnumSource(ConsistentHash.Algorithm.class)
  void withoutAKeyRequestsRotateAsRoundRobin(ConsistentHash.Algorithm algorithm) {
    PoolRouter r = router(algorithm, five(), null);
    List<String> seq = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      seq.add(r.pick(Set.of(), HashKey.NONE).host());
    }
    assertThat(seq).containsExactly("k1", "k2", "k3", "k4", "k5", "k1", "k2", "k3", "k4", "k5");
    assertThat(Fixtures.picks(r, 5)).containsExactly("k1", "k2", "k3", "k4", "k5");
  }
}
