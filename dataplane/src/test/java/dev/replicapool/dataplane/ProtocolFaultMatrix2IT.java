package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.dataplane.CrashingMember.Mode;
import dev.replicapool.dataplane.CrashingMember.Seen;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rest of the fault dimension of {@link ProtocolFaultMatrixIT}, with the same clients, member
 * protocols, requests and idempotency, and the same recording members: a member that stalls past
 * the pool's per-try timeout (200 ms), one that resets mid-answer, an h2c member that answers the
 * preface with GOAWAY(0) or reads the request then sends GOAWAY naming its stream and closes, and
 * an HTTP/1.1 member that sends two answers to one request.
 *
 * <p>What each cell asserts, by docs/DATAPLANE.md "Retry safety": the faulty member read the
 * request at most once, as sent (the GOAWAY(0) member none); the other member got it exactly when
 * the table sends it again, byte for byte; the client got the other member's answer, else 504
 * (gRPC: DEADLINE_EXCEEDED) after a per-try timeout, 502 (gRPC: UNAVAILABLE) after a GOAWAY, a cut
 * answer (HTTP/1.1: the connection closed before the answer's end; HTTP/2: the stream reset; gRPC:
 * UNAVAILABLE, never INTERNAL) after a reset mid-answer; and the retry's reason. Two answers to one
 * request: the client's two requests on one connection each get their own answer, never the stray
 * one, and the member's connection is not used again.
 */
class ProtocolFaultMatrix2IT extends FaultMatrixBase {
  enum Fault implements FaultMatrixBase.Fault {
    STALL("stalls past the per-try timeout", Mode.STALL),
    RESET_MID_ANSWER("reset mid-answer", Mode.RESET_MID_ANSWER),
    GOAWAY_AT_PREFACE("GOAWAY(0) at the preface", Mode.GOAWAY_AT_PREFACE),
    GOAWAY_AFTER_READ("GOAWAY naming the stream, then close", Mode.GOAWAY_AFTER_READ),
    EXTRA_ANSWER("two answers to one request", Mode.EXTRA_ANSWER);

    final String label;
    final Mode mode;

    Fault(String label, Mode mode) {
      this.label = label;
      this.mode = mode;
    }

    @Override
    public String label() {
      return label;
    }
  }

  static final long PER_TRY_MILLIS = 200;

  /** Whether the table certainly sends it to the other member. */
  static boolean sentAgain(Cell<Fault> cell) {
    return switch (cell.fault()) {
      case STALL, GOAWAY_AFTER_READ -> cell.idempotent(); // every body here is kept (3,000 bytes)
      case GOAWAY_AT_PREFACE -> true; // unprocessed: any request whose bytes it has
      case RESET_MID_ANSWER, EXTRA_ANSWER -> false; // an answer started
    };
  }

  /** The reason the retry is reported with, when sent again. */
  static List<String> expectedRetryReasons(Cell<Fault> cell) {
    return switch (cell.fault()) {
      case STALL -> List.of("timeout");
      case GOAWAY_AFTER_READ -> List.of("reset");
      default -> List.of("unprocessed", "connect_failure");
    };
  }

  /** What the client gets when it is not sent again. */
  static String failedStatus(Cell<Fault> cell) {
    boolean grpc = cell.client() == Client.GRPC;
    return switch (cell.fault()) {
      case STALL -> grpc ? "DEADLINE_EXCEEDED" : "504";
      case RESET_MID_ANSWER -> grpc ? "UNAVAILABLE" : "failed";
      default -> grpc ? "UNAVAILABLE" : "502";
    };
  }

  static Stream<Cell<Fault>> cells() {
    return Cell.all(
        Fault.values(),
        (f, m) -> {
          // GOAWAY is HTTP/2's; two answers to one request HTTP/1.1's
          boolean goAway = f == Fault.GOAWAY_AT_PREFACE || f == Fault.GOAWAY_AFTER_READ;
          return !(goAway && m != Members.H2C || f == Fault.EXTRA_ANSWER && m != Members.HTTP);
        });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cells")
  void aFaultIsAnsweredAsTheTableSays(Cell<Fault> cell) throws Exception {
    int n = cellNumber.incrementAndGet();
    String host = "d" + n + ".matrix2.example";
    String pool = "matrix2/d" + n;
    CrashingMember faulty = new CrashingMember(vertx, "faulty", cell.fault().mode).start();
    CrashingMember answering = new CrashingMember(vertx, ANSWERING, Mode.ANSWER).start();
    try {
      SnapshotBuilder b =
          SnapshotBuilder.pool(pool)
              .hosts(host)
              .appProtocol(cell.members().appProtocol)
              .member(faulty.snapshot(1.0));
      if (cell.fault() != Fault.EXTRA_ANSWER) {
        b.member(answering.snapshot(0.1)); // with two answers, every request goes to the faulty
      }
      if (cell.fault() == Fault.STALL) {
        b.timeouts(null, PER_TRY_MILLIS, null);
      }
      if (cell.named()) {
        b.idempotent(List.of("POST"), List.of("/replicapool.test.Echo/*"));
      }
      publish(b);

      byte[] body = body(n);
      Seen sent = expectedSeen(cell.request(), body);
      if (cell.fault() == Fault.EXTRA_ANSWER) {
        twoAnswers(cell, host, body, sent, faulty, pool);
        return;
      }
      Outcome got = send(cell.client(), cell.request(), host, body);
      List<String> retries = retryReasons(pool);
      System.out.println("CELL " + cell + ": " + got + ", retries " + retries);

      if (cell.fault() == Fault.GOAWAY_AT_PREFACE) {
        assertThat(faulty.accepted).as("%s: the member was dialled", cell).hasPositiveValue();
        assertThat(faulty.seen).as("%s: the member processed nothing", cell).isEmpty();
      } else {
        await().atMost(WAIT).untilAsserted(() -> assertThat(faulty.seen).isNotEmpty());
        assertThat(faulty.seen)
            .as("%s: the faulty member read it once, as sent", cell)
            .containsExactly(sent);
      }
      if (sentAgain(cell)) {
        assertThat(answering.seen).as("%s: sent again, byte for byte", cell).containsExactly(sent);
        assertThat(got).as("%s", cell).isEqualTo(new Outcome(okStatus(cell.client()), ANSWERING));
        assertThat(retries).as("%s: why", cell).hasSize(1).isSubsetOf(expectedRetryReasons(cell));
      } else {
        assertThat(answering.seen).as("%s: not sent again", cell).isEmpty();
        assertThat(got.status()).as("%s: %s", cell, got).isEqualTo(failedStatus(cell));
        assertThat(retries).as("%s: no retry", cell).isEmpty();
      }
    } finally {
      answering.stop();
      faulty.stop();
    }
  }

  /**
   * Two requests, one after the other, on one client connection (HTTP/1.1: one socket; HTTP/2 and
   * gRPC: the class's one connection): each gets the member's first answer, never the stray one,
   * and the member connection that carried a stray answer is closed: each request has its own.
   */
  void twoAnswers(
      Cell<Fault> cell, String host, byte[] body, Seen sent, CrashingMember faulty, String pool)
      throws Exception {
    List<Outcome> got = new ArrayList<>();
    if (cell.client() == Client.H1) {
      try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
        got.add(h1(c, cell.request(), host, body));
        got.add(h1(c, cell.request(), host, body));
      }
    } else {
      got.add(send(cell.client(), cell.request(), host, body));
      got.add(send(cell.client(), cell.request(), host, body));
    }
    System.out.println("CELL " + cell + ": " + got + ", accepted " + faulty.accepted);
    Outcome first = new Outcome(okStatus(cell.client()), "faulty");
    assertThat(got).as("%s: each its own answer", cell).containsExactly(first, first);
    assertThat(faulty.seen).as("%s: both read, as sent", cell).containsExactly(sent, sent);
    assertThat(faulty.accepted).as("%s: a connection each", cell).hasValue(2);
    assertThat(retryReasons(pool)).as("%s: no retry", cell).isEmpty();
  }
}
