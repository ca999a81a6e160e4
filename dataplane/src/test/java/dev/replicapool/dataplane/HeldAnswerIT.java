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
 * proxy's 502 instead.
 */
class HeldAnswerIT extends FaultMatrixBase {
  /** The one fault here, so that the cells read as the matrices' do. */
  enum Fault implements FaultMatrixBase.Fault {
    ANSWER_503_RETRY_REFUSED;

    @Override
    public String label() {
      return "503 answer, its retry refused";
    }
  }

  /** The cells whose request the pool may send twice. */
  static Stream<Cell<Fault>> cells() {
    return Cell.all(Fault.values(), (f, m) -> true).filter(Cell::idempotent);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cells")
  void theMembersOwn503GoesToTheClientWhenItsRetryReachesNoMember(Cell<Fault> cell)
      throws Exception {
    int n = cellNumber.incrementAndGet();
    String host = "c" + n + ".held.example";
    String pool = "held/c" + n;
    CrashingMember busy = new CrashingMember(vertx, "busy", Mode.ANSWER_503).start();
    try (RefusedPort refused = new RefusedPort("127.0.0.1")) {
      SnapshotBuilder b =
          SnapshotBuilder.pool(pool)
              .hosts(host)
              .appProtocol(cell.members().appProtocol)
              .member(busy.snapshot(1.0))
              .member(new MemberSnapshot("127.0.0.1", refused.port, 0.1, MemberState.Healthy))
              .retryOn5xx();
      if (cell.named()) {
        b.idempotent(List.of("POST"), List.of("/replicapool.test.Echo/*"));
      }
      publish(b);

      byte[] body = body(n);
      Outcome got = send(cell.client(), cell.request(), host, body);
      Seen sent = expectedSeen(cell.request(), body);

      await().atMost(WAIT).untilAsserted(() -> assertThat(busy.seen).isNotEmpty());
      assertThat(busy.seen)
          .as("%s: the busy member read it once, as sent", cell)
          .containsExactly(sent);
      if (cell.client() == Client.GRPC) {
        // grpc-java reads an HTTP 503 as UNAVAILABLE and says so; the proxy's own 502 would say
        // which member was unreachable instead.
        assertThat(got.status()).as("%s", cell).isEqualTo("UNAVAILABLE");
        assertThat(got.body())
            .as("%s: %s", cell, got)
            .contains("503")
            .doesNotContain("unreachable");
      } else {
        assertThat(got).as("%s", cell).isEqualTo(new Outcome("503", "busy"));
      }
      // The refused retry is not followed by another: no member is left for one.
      assertThat(retryReasons(pool))
          .as("%s: the 503 was retried, its retry refused", cell)
          .containsExactly("status_503");
    } finally {
      busy.stop();
    }
  }
}
