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
 * The table of docs/DATAPLANE.md "Retry safety", cell by cell, with real parts: every client
 * protocol (HTTP/1.1 by hand, HTTP/2 with prior knowledge by Vert.x's client, gRPC by grpc-java) x
 * every member protocol ({@code http}, {@code kubernetes.io/h2c}) x a fault of the member the
 * balancer picks first x a request (GET, POST with Content-Length, POST without it, unary gRPC) x
 * whether the pool names POST and the gRPC service idempotent. The faulty member has weight 1 and
 * the one that answers 0.1, so the first try goes to the faulty one; both record every request they
 * read (method, path, body length and CRC32). Each cell gets its own pool (own host) and its own
 * two members, so no cell sees another's connections or router state; the data plane and control
 * plane are shared.
 *
 * <p>What each cell asserts: the faulty member received the request at most once and as sent; the
 * other member received it exactly when the table says it is sent again (a try that provably sent
 * nothing; or one that may have reached the member, for a request the pool names idempotent whose
 * bytes the proxy kept), and then the same bytes; the client got the other member's answer, or the
 * 502 (gRPC: UNAVAILABLE, never INTERNAL) or the member's 503.
 */
class ProtocolFaultMatrixIT extends FaultMatrixBase {
  enum Fault implements FaultMatrixBase.Fault {
    REFUSED("connection refused"),
    CLOSE_ON_ACCEPT("crash before reading"),
    CRASH_AFTER_READ("crash after reading"),
    ANSWER_503("503 answer"),
    ANSWER_503_RETRIED("503 answer, pool retries idempotent 5xx");

    final String label;

    Fault(String label) {
      this.label = label;
    }

    @Override
    public String label() {
      return label;
    }
  }

  /** Whether the table sends it to the other member. */
  static boolean sentAgain(Cell<Fault> cell) {
    return switch (cell.fault()) {
      case REFUSED -> true;
      // every request here is kept whole (bodies of 3,000 bytes, below the 64 KiB kept)
      case CLOSE_ON_ACCEPT, CRASH_AFTER_READ -> cell.idempotent();
      case ANSWER_503 -> false; // retry.retryIdempotentOn5xx is off by default
      case ANSWER_503_RETRIED -> cell.idempotent(); // answered: sent again only when safe
    };
  }

  /** Whether the faulty member reads the request. */
  static boolean faultyReads(Cell<Fault> cell) {
    return cell.fault() != Fault.REFUSED && cell.fault() != Fault.CLOSE_ON_ACCEPT;
  }

  // A cell the data plane fails today is left out here, with a comment "// fails today: <what
  // happens>", until it is fixed. None is left out.
  static Stream<Cell<Fault>> cells() {
    return Cell.all(Fault.values(), (f, m) -> true);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cells")
  void aRequestIsSentAgainOnlyAsTheTableSays(Cell<Fault> cell) throws Exception {
    int n = cellNumber.incrementAndGet();
    String host = "c" + n + ".matrix.example";
    CrashingMember faulty = null;
    RefusedPort refused = null;
    int faultyPort;
    if (cell.fault() == Fault.REFUSED) {
      refused = new RefusedPort("127.0.0.1"); // held, so the answering member cannot be given it
      faultyPort = refused.port;
    } else {
      Mode mode =
          switch (cell.fault()) {
            case CLOSE_ON_ACCEPT -> Mode.CLOSE_ON_ACCEPT;
            case CRASH_AFTER_READ -> Mode.CRASH_AFTER_READ;
            default -> Mode.ANSWER_503;
          };
      faulty = new CrashingMember(vertx, "faulty", mode).start();
      faultyPort = faulty.port;
    }
    CrashingMember answering = new CrashingMember(vertx, ANSWERING, Mode.ANSWER).start();
    try {
      SnapshotBuilder b =
          SnapshotBuilder.pool("matrix/c" + n)
              .hosts(host)
              .appProtocol(cell.members().appProtocol)
              .member(new MemberSnapshot("127.0.0.1", faultyPort, 1.0, MemberState.Healthy))
              .member(answering.snapshot(0.1));
      if (cell.named()) {
        b.idempotent(List.of("POST"), List.of("/replicapool.test.Echo/*"));
      }
      if (cell.fault() == Fault.ANSWER_503_RETRIED) {
        b.retryOn5xx();
      }
      publish(b);

      byte[] body = body(n);
      Outcome got = send(cell.client(), cell.request(), host, body);
      Seen sent = expectedSeen(cell.request(), body);
      List<String> retries = retryReasons("matrix/c" + n);
      System.out.println("CELL " + cell + ": " + got.status() + ", retries " + retries);

      if (faultyReads(cell)) {
        CrashingMember f = faulty;
        await().atMost(WAIT).untilAsserted(() -> assertThat(f.seen).isNotEmpty());
        assertThat(faulty.seen)
            .as("%s: the faulty member read it once, as sent", cell)
            .containsExactly(sent);
      } else if (faulty != null) {
        assertThat(faulty.accepted).as("%s: the member was dialled", cell).hasPositiveValue();
        assertThat(faulty.seen).as("%s: the member read nothing", cell).isEmpty();
      }
      if (sentAgain(cell)) {
        assertThat(answering.seen).as("%s: sent again, byte for byte", cell).containsExactly(sent);
        assertThat(got).as("%s", cell).isEqualTo(new Outcome(okStatus(cell.client()), ANSWERING));
      } else if (cell.fault() == Fault.CLOSE_ON_ACCEPT && !answering.seen.isEmpty()) {
        // The member closed the connection before the request's stream or bytes went out: a
        // connect failure, after which the table lets any request go to another member. Only
        // that: a request that may have reached it ("reset") is not sent again.
        assertThat(answering.seen)
            .as("%s: sent on once, byte for byte", cell)
            .containsExactly(sent);
        assertThat(retries).as("%s: why it was sent on", cell).containsExactly("connect_failure");
        assertThat(got).as("%s", cell).isEqualTo(new Outcome(okStatus(cell.client()), ANSWERING));
      } else {
        assertThat(answering.seen).as("%s: not sent again", cell).isEmpty();
        assertThat(got.status()).as("%s: %s", cell, got).isEqualTo(failedStatus(cell));
      }
      // And the data plane says why, as the table's last column does.
      if (answering.seen.isEmpty()) {
        assertThat(retries).as("%s: no retry", cell).isEmpty();
      } else if (cell.fault() == Fault.REFUSED) {
        assertThat(retries).as("%s", cell).containsExactly("connect_failure");
      } else if (cell.fault() == Fault.CRASH_AFTER_READ) {
        assertThat(retries).as("%s", cell).containsExactly("reset");
      } else if (cell.fault() == Fault.ANSWER_503_RETRIED) {
        assertThat(retries).as("%s", cell).containsExactly("status_503");
      } else {
        assertThat(retries).as("%s", cell).hasSize(1).isSubsetOf("connect_failure", "reset");
      }
    } finally {
      answering.stop();
      if (faulty != null) {
        faulty.stop();
      }
      if (refused != null) {
        refused.close();
      }
    }
  }

  /** A try that may have reached a member and is not sent again: 502; the member's own 503. */
  static String failedStatus(Cell<Fault> cell) {
    if (cell.client() == Client.GRPC) {
      return "UNAVAILABLE";
    }
    return cell.fault() == Fault.ANSWER_503 || cell.fault() == Fault.ANSWER_503_RETRIED
        ? "503"
        : "502";
  }
}
