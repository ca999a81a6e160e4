package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.dataplane.CrashingMember.Mode;
import dev.replicapool.dataplane.CrashingMember.Seen;
import dev.replicapool.testing.RefusedPort;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A member's 503 that a retry was sent to replace, when the retry reaches no member: the client
 * gets the member's own 503, as it came, whatever its protocol and the members'. Every client
 * (HTTP/1.1 by hand, HTTP/2 with prior knowledge by Vert.x's client, gRPC by grpc-java) x member
 * protocol ({@code http}, {@code kubernetes.io/h2c}) x request the pool may send twice (GET, and
 * POST and the gRPC call named idempotent): the member picked first (weight 1) answers 503 with its
 * name as the body, the only other member (0.1) refuses connections, the pool retries idempotent
 * 5xx. Before HTTP/2 streams held such an answer, an HTTP/2 or gRPC client of an h2c pool got the
 * proxy's 502 instead. And the same 503 while a hedge of the request is out: not held, for any
 * protocol.
 */
class HeldAnswerIT extends FaultMatrixBase {
  /** The faults here, so that the cells read as the matrices' do. */
  enum Fault implements FaultMatrixBase.Fault {
    ANSWER_503_RETRY_REFUSED("503 answer, its retry refused"),
    ANSWER_503_HEDGE_OUT("503 answer while a hedge is out");

    private final String label;

    Fault(String label) {
      this.label = label;
    }

    @Override
    public String label() {
      return label;
    }
  }

  static Stream<Cell<Fault>> retryRefused() {
    return cells(Fault.ANSWER_503_RETRY_REFUSED);
  }

  static Stream<Cell<Fault>> hedgeOut() {
    return cells(Fault.ANSWER_503_HEDGE_OUT);
  }

  /** The cells of {@code fault} whose request the pool may send twice. */
  static Stream<Cell<Fault>> cells(Fault fault) {
    return Cell.all(new Fault[] {fault}, (f, m) -> true).filter(Cell::idempotent);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("retryRefused")
  void theMembersOwn503GoesToTheClientWhenItsRetryReachesNoMember(Cell<Fault> cell)
      throws Exception {
    int n = cellNumber.incrementAndGet();
    String host = "c" + n + ".held.example";
    String pool = "held/c" + n;
    CrashingMember busy = new CrashingMember(vertx, "busy", Mode.ANSWER_503).start();
    try (RefusedPort refused = new RefusedPort("127.0.0.1")) {
      publishFor(
          cell,
          SnapshotBuilder.pool(pool)
              .hosts(host)
              .member(busy.snapshot(1.0))
              .member(new MemberSnapshot("127.0.0.1", refused.port, 0.1, MemberState.Healthy))
              .retryOn5xx());

      byte[] body = body(n);
      Outcome got = send(cell.client(), cell.request(), host, body);
      Seen sent = expectedSeen(cell.request(), body);

      await().atMost(WAIT).untilAsserted(() -> assertThat(busy.seen).isNotEmpty());
      assertThat(busy.seen)
          .as("%s: the busy member read it once, as sent", cell)
          .containsExactly(sent);
      assertBusy503(cell, got);
      // The refused retry is not followed by another: no member is left for one.
      assertThat(retryReasons(pool))
          .as("%s: the 503 was retried, its retry refused", cell)
          .containsExactly("status_503");
    } finally {
      busy.stop();
    }
  }

  /**
   * The member picked first answers 503 only after a hedge went to one of two members that never
   * answer: the 503 goes to the client and the hedge loses, for every client and member protocol
   * alike (one rule, {@code TryCourse.mayReplace}); no retry goes to the third member. HTTP/1.x
   * exchanges once dropped the hedge and sent a retry to the third, which never answered either.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("hedgeOut")
  void aMembers503WhileAHedgeIsOutGoesToTheClientAndNoRetryFollows(Cell<Fault> cell)
      throws Exception {
    int n = cellNumber.incrementAndGet();
    String host = "h" + n + ".held.example";
    String pool = "held/h" + n;
    CrashingMember busy = new CrashingMember(vertx, "busy", Mode.ANSWER_503).after(300).start();
    CrashingMember s1 = new CrashingMember(vertx, "s1", Mode.STALL).start();
    CrashingMember s2 = new CrashingMember(vertx, "s2", Mode.STALL).start();
    try {
      publishFor(
          cell,
          SnapshotBuilder.pool(pool)
              .hosts(host)
              .member(busy.snapshot(1.0))
              .member(s1.snapshot(0.1))
              .member(s2.snapshot(0.1))
              .retryOn5xx()
              .hedgeAfterMillis(20, 1));

      byte[] body = body(n);
      Outcome got = send(cell.client(), cell.request(), host, body);
      Seen sent = expectedSeen(cell.request(), body);

      assertBusy503(cell, got);
      assertThat(busy.seen).as("%s", cell).containsExactly(sent);
      List<Seen> stalled = Stream.concat(s1.seen.stream(), s2.seen.stream()).toList();
      assertThat(stalled)
          .as("%s: the hedge, as sent, and no retry after it", cell)
          .containsExactly(sent);
      assertThat(retryReasons(pool)).as("%s", cell).isEmpty();
    } finally {
      busy.stop();
      s1.stop();
      s2.stop();
    }
  }

  /**
   * Publishes {@code pool} to the cell's members' protocol, naming what the cell names idempotent.
   */
  private void publishFor(Cell<Fault> cell, SnapshotBuilder pool) throws Exception {
    pool.appProtocol(cell.members().appProtocol);
    if (cell.named()) {
      pool.idempotent(List.of("POST"), List.of("/replicapool.test.Echo/*"));
    }
    publish(pool);
  }

  /** The client got the busy member's own 503, as it came. */
  private static void assertBusy503(Cell<Fault> cell, Outcome got) {
    if (cell.client() == Client.GRPC) {
      // grpc-java reads an HTTP 503 as UNAVAILABLE and says so; the proxy's own 502 would say
      // which member was unreachable instead.
      assertThat(got.status()).as("%s", cell).isEqualTo("UNAVAILABLE");
      assertThat(got.body()).as("%s: %s", cell, got).contains("503").doesNotContain("unreachable");
    } else {
      assertThat(got).as("%s", cell).isEqualTo(new Outcome("503", "busy"));
    }
  }
}
