package dev.replicapool.dataplane.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.v1alpha1.RoutingPolicy;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.PoolSnapshot;
import dev.replicapool.api.wire.PoolSnapshotBuilder;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SnapshotValidatorTest {
  static final Set<Integer> OWN_PORTS = Set.of(8080, 9901);

  static PoolSnapshot snapshot(long version, List<String> hosts, Integer port, int... members) {
    return PoolSnapshotBuilder.builder()
        .pool("a/p")
        .version(version)
        .policy(RoutingPolicy.RoundRobin)
        .hosts(hosts)
        .port(port)
        .members(
            Arrays.stream(members)
                .mapToObj(p -> new MemberSnapshot("10.0.0.1", p, 1.0, MemberState.Healthy))
                .toList())
        .build();
  }

  /** The pool as the table has it: only its snapshot's version is read. */
  static PoolRuntime applied(long version) {
    return new PoolRuntime(
        snapshot(version, List.of(), null), null, List.of(), null, null, null, null, null);
  }

  static List<String> check(PoolSnapshot s, PoolRuntime existing) {
    return SnapshotValidator.check(s, existing, OWN_PORTS);
  }

  @Test
  void aValidSnapshotGivesItsHostsLowerCasedWithoutRepeats() {
    PoolSnapshot s =
        snapshot(2, Arrays.asList(" P.Example ", "p.example", "*.Wild.example"), 18080, 1, 2);
    assertThat(check(s, applied(2))).containsExactly("p.example", "*.wild.example");
    assertThat(check(snapshot(1, null, null, 1), null)).isEmpty();
  }

  @Test
  void refusesWhatTheSnapshotItselfGetsWrong() {
    assertThatThrownBy(() -> check(snapshot(0, List.of(), null), null))
        .hasMessage("invalid snapshot: version must be positive, got 0");
    assertThatThrownBy(() -> check(snapshot(1, List.of(), null, 1, 1), null))
        .hasMessage("member 10.0.0.1:1 is listed twice");
    assertThatThrownBy(() -> check(snapshot(1, List.of("bad host!"), null, 1), null))
        .hasMessage("host bad host! is not a DNS name or *.suffix");
    assertThatThrownBy(() -> check(snapshot(1, Arrays.asList((String) null), null, 1), null))
        .hasMessage("host null is not a DNS name or *.suffix");
  }

  @Test
  void refusesAVersionOlderThanTheAppliedOne() {
    assertThatThrownBy(() -> check(snapshot(4, List.of(), null, 1), applied(5)))
        .hasMessage("version 4 is older than the applied 5");
    assertThatCode(() -> check(snapshot(5, List.of(), null, 1), applied(5)))
        .doesNotThrowAnyException();
  }

  @Test
  void refusesThePortsOfTheDataPlaneItself() {
    assertThatThrownBy(() -> check(snapshot(1, List.of(), 9901, 1), null))
        .hasMessage("port 9901 is one of the data plane's own ports");
    assertThat(check(snapshot(1, List.of(), 9902, 1), null)).isEmpty();
  }

  @Test
  void theFirstProblemIsTheReason() {
    // The checks run in this order: version, members, hosts, port.
    assertThatThrownBy(() -> check(snapshot(1, List.of("bad host!"), 9901, 1, 1), applied(2)))
        .hasMessage("version 1 is older than the applied 2");
    assertThatThrownBy(() -> check(snapshot(3, List.of("bad host!"), 9901, 1, 1), applied(2)))
        .hasMessage("member 10.0.0.1:1 is listed twice");
    assertThatThrownBy(() -> check(snapshot(3, List.of("bad host!"), 9901, 1), applied(2)))
        .hasMessage("host bad host! is not a DNS name or *.suffix");
  }

  @Test
  void aRemovalMayNotBeOlderThanTheAppliedPool() {
    assertThatThrownBy(() -> SnapshotValidator.checkRemoval(applied(5), 4))
        .hasMessage("removal version 4 is older than the applied 5");
    assertThatCode(() -> SnapshotValidator.checkRemoval(applied(5), 5)).doesNotThrowAnyException();
    assertThatCode(() -> SnapshotValidator.checkRemoval(null, 1)).doesNotThrowAnyException();
  }
}
