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
  enum Fault {
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
  }

  static final long PER_TRY_MILLIS = 200;

  /** One cell; {@code named}: the pool names POST and the gRPC service idempotent. */
  record Cell(Client client, Members members, Fault fault, Request request, boolean named) {
    @Override
    public String toString() {
      return client.label
          + " -> "
          + members.appProtocol
          + " | "
          + fault.label
          + " | "
          + request.label
          + " | "
          + (named ? "POST+gRPC named idempotent" : "default idempotency");
    }

    boolean idempotent() {
      return request == Request.GET || named;
    }

    /** Whether the table certainly sends it to the other member. */
    boolean sentAgain() {
      return switch (fault) {
        case STALL, GOAWAY_AFTER_READ -> idempotent(); // every body here is kept (3,000 bytes)
        case GOAWAY_AT_PREFACE -> true; // unprocessed: any request whose bytes it has
        case RESET_MID_ANSWER, EXTRA_ANSWER -> false; // an answer started
      };
    }

    /** The reason the retry is reported with, when sent again. */
    List<String> retryReasons() {
      return switch (fault) {
        case STALL -> List.of("timeout");
        case GOAWAY_AFTER_READ -> List.of("reset");
        default -> List.of("unprocessed", "connect_failure");
      };
    }

    /** What the client gets when it is not sent again. */
    String failedStatus() {
      return switch (fault) {
        case STALL -> client == Client.GRPC ? "DEADLINE_EXCEEDED" : "504";
        case RESET_MID_ANSWER -> client == Client.GRPC ? "UNAVAILABLE" : "failed";
        default -> client == Client.GRPC ? "UNAVAILABLE" : "502";
      };
    }
  }

  static Stream<Cell> cells() {
    List<Cell> all = new ArrayList<>();
    for (Client c : Client.values()) {
      for (Members m : Members.values()) {
        for (Fault f : Fault.values()) {
          boolean goAway = f == Fault.GOAWAY_AT_PREFACE || f == Fault.GOAWAY_AFTER_READ;
          if (goAway && m != Members.H2C || f == Fault.EXTRA_ANSWER && m != Members.HTTP) {
            continue; // GOAWAY is HTTP/2's; two answers to one request HTTP/1.1's
          }
          for (Request r : Request.values()) {
            if ((c == Client.GRPC) != (r == Request.GRPC_UNARY)) {
              continue;
            }
            for (boolean named : new boolean[] {false, true}) {
              if (named && r == Request.GET) {
                continue;
              }
              all.add(new Cell(c, m, f, r, named));
            }
          }
        }
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cells")
  void aFaultIsAnsweredAsTheTableSays(Cell cell) throws Exception {
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
      if (cell.sentAgain()) {
        assertThat(answering.seen).as("%s: sent again, byte for byte", cell).containsExactly(sent);
        assertThat(got).as("%s", cell).isEqualTo(new Outcome(okStatus(cell.client()), ANSWERING));
        assertThat(retries).as("%s: why", cell).hasSize(1).isSubsetOf(cell.retryReasons());
      } else {
        assertThat(answering.seen).as("%s: not sent again", cell).isEmpty();
        assertThat(got.status()).as("%s: %s", cell, got).isEqualTo(cell.failedStatus());
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
      Cell cell, String host, byte[] body, Seen sent, CrashingMember faulty, String pool)
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
