package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.CrashingMember.Received;
import dev.replicapool.dataplane.H2Posts.Answer;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hedges of requests with a body, for an HTTP/1.1 and an HTTP/2 client, to HTTP/1.1 and h2c
 * members: a hedge goes out once the whole request is in and kept, and carries all of it, byte for
 * byte; a body past what is kept is never hedged, so no member gets part of a request. Real members
 * that record what they read: one that stalls after reading (weight 1, so it gets the first try)
 * and one that answers (weight 0.1). The pool names POST idempotent and hedges after 30 ms.
 */
class HedgedBodiesIT extends DataPlaneTestBase {
  static final String HOST = "uploads.example";
  static final String BODY = "order=42&item=shoes&qty=007";

  /** Past the 64 KiB kept for a replay. */
  static final String BIG = "0123456789abcdef".repeat(80 * 1024 / 16);

  H2Posts h2;

  @AfterEach
  void stopClient() {
    if (h2 != null) {
      h2.close();
    }
  }

  CrashingMember stalled;
  CrashingMember answering;

  /** The pool over the stalling and the answering member; 504 after 1 s when no try answers. */
  void hedgedPool(String appProtocol) {
    stalled = new CrashingMember(vertx, "stalled", CrashingMember.Mode.STALL).start();
    answering = new CrashingMember(vertx, "answering", CrashingMember.Mode.ANSWER).start();
    startDataPlane();
    publish(
        SnapshotBuilder.pool("shop/uploads")
            .hosts(HOST)
            .appProtocol(appProtocol)
            .idempotent(List.of("POST"), null)
            .hedgeAfterMillis(30, 1)
            .timeouts(1_000L, null, null)
            .member(stalled.snapshot(1.0))
            .member(answering.snapshot(0.1)));
  }

  Answer post(String client, String body) throws Exception {
    if (client.equals("h2")) {
      h2 = new H2Posts(vertx, dp.trafficPort());
      return h2.post(HOST, "/orders", body);
    }
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      if (client.equals("h1 chunked")) { // the body in two chunks, each with its framing
        RawHttp.Response r =
            c.send(
                "POST /orders HTTP/1.1\r\nHost: "
                    + HOST
                    + "\r\nTransfer-Encoding: chunked\r\n\r\na\r\n"
                    + body.substring(0, 10)
                    + "\r\n"
                    + Integer.toHexString(body.length() - 10)
                    + "\r\n"
                    + body.substring(10)
                    + "\r\n0\r\n\r\n");
        return new Answer(r.status(), r.body());
      }
      RawHttp.Response r = c.post(HOST, "/orders", body);
      return new Answer(r.status(), r.body());
    }
  }

  void aHedgeCarriesTheWholeBody(String client, String appProtocol) throws Exception {
    hedgedPool(appProtocol);
    Answer a = post(client, BODY);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    assertThat(a.body()).isEqualTo("answering");
    assertThat(stalled.received).containsExactly(new Received("POST", "/orders", BODY));
    assertThat(answering.received).containsExactly(new Received("POST", "/orders", BODY));
    assertThat(metric("replicapool_hedges_total", "outcome=\"won\"")).isEqualTo(1);
  }

  void aBodyPastWhatIsKeptIsNotHedged(String client, String appProtocol) throws Exception {
    hedgedPool(appProtocol);
    Answer a = post(client, BIG);
    assertThat(a.status())
        .as("the stalled member's try ends at the request timeout")
        .isEqualTo(504);
    assertThat(stalled.received).containsExactly(new Received("POST", "/orders", BIG));
    assertThat(answering.received).as("no hedge: it would get part of the request").isEmpty();
    assertThat(metric("replicapool_hedges_total", "outcome=\"sent\"")).isZero();
  }

  @Test
  void anHttp11PostIsHedgedWithItsWholeBody() throws Exception {
    aHedgeCarriesTheWholeBody("h1", "http");
  }

  @Test
  void anHttp11ChunkedPostIsHedgedWithItsWholeBody() throws Exception {
    aHedgeCarriesTheWholeBody("h1 chunked", "http");
  }

  @Test
  void anHttp2PostToH2cMembersIsHedgedWithItsWholeBody() throws Exception {
    aHedgeCarriesTheWholeBody("h2", "kubernetes.io/h2c");
  }

  @Test
  void anHttp2PostBridgedToHttp11MembersIsHedgedWithItsWholeBody() throws Exception {
    aHedgeCarriesTheWholeBody("h2", "http");
  }

  @Test
  void anHttp11PostPastWhatIsKeptIsNotHedged() throws Exception {
    aBodyPastWhatIsKeptIsNotHedged("h1", "http");
  }

  @Test
  void anHttp2PostPastWhatIsKeptIsNotHedgedToH2cMembers() throws Exception {
    aBodyPastWhatIsKeptIsNotHedged("h2", "kubernetes.io/h2c");
  }
}
