package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.forward.ResponseRelay.BodyRead;
import dev.replicapool.dataplane.forward.ResponseRelay.Phase;
import dev.replicapool.dataplane.wire.ResponseHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The answer of the try in front, phase by phase, from the member's bytes to what the client is
 * written, with a fake client connection and a fake member side that write down what they are told
 * (the client's body is complete, so the answer flows as it comes: {@link ClientOutputTest} has the
 * rest).
 */
class ResponseRelayTest {
  final FakeHttp1Sides sides = new FakeHttp1Sides();
  final List<String> told = sides.told;
  final ClientOutput out = new ClientOutput(sides.client, sides.request);

  ResponseRelay relay(boolean sentContinue) {
    return new ResponseRelay(
        sides.client,
        sides.member,
        out,
        new ResponseHead(),
        false,
        sentContinue,
        false,
        null,
        false);
  }

  final ResponseRelay relay = relay(false);

  ResponseRelayTest() {
    sides.requestEnded = true; // the client's body is complete: the answer flows as it comes
  }

  @AfterEach
  void release() {
    relay.release();
    out.release();
    sides.releaseAll();
  }

  static ByteBuf bytes(String s) {
    return FakeHttp1Sides.bytes(s);
  }

  /** The head read and the answer begun (held or not); returns what came after the head. */
  ByteBuf headIn(String bytes, boolean hold) {
    ByteBuf rest = relay.nextHead(bytes(bytes));
    assertThat(rest).as(relay.invalidHead()).isNotNull();
    assertThat(relay.phase()).isEqualTo(Phase.HEAD_READ);
    relay.begin(hold);
    return rest;
  }

  @Test
  void aHeadAndItsSmallBodyGoToTheClientInOneWrite() {
    assertThat(relay.phase()).isEqualTo(Phase.HEAD);
    ByteBuf rest = headIn("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false);
    assertThat(relay.phase()).isEqualTo(Phase.PASSED);
    assertThat(relay.started()).isTrue();

    assertThat(relay.body(rest)).isEqualTo(BodyRead.ENDED);
    assertThat(told).containsExactly("client <- HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");
  }

  @Test
  void aHeadSplitOverReadsIsKeptUntilWhole() {
    assertThat(relay.nextHead(bytes("HTTP/1.1 204 No Con"))).isNull();
    assertThat(relay.invalidHead()).isNull();
    assertThat(relay.phase()).isEqualTo(Phase.HEAD);
    ByteBuf rest = relay.nextHead(bytes("tent\r\n\r\n"));
    assertThat(rest).isNotNull();
    assertThat(relay.status()).isEqualTo(204);
    assertThat(relay.phase()).isEqualTo(Phase.HEAD_READ);
    rest.release();
  }

  @Test
  void anInvalidHeadIsRefusedWithItsReason() {
    assertThat(relay.nextHead(bytes("HTTP/1.1 abc\r\n\r\n"))).isNull();
    assertThat(relay.invalidHead()).isNotNull();
    assertThat(relay.phase()).isEqualTo(Phase.HEAD);
    assertThat(told).isEmpty();
  }

  @Test
  void interimHeadsPassUnlessTheProxyAnsweredTheExpectItself() {
    ByteBuf rest = relay.nextHead(bytes("HTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 200 OK\r\n"));
    assertThat(rest).isNull();
    assertThat(told).containsExactly("client <- HTTP/1.1 103 Early Hints\r\n\r\n");

    ResponseRelay continued = relay(true);
    ByteBuf after =
        continued.nextHead(bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"));
    assertThat(after).isNotNull();
    assertThat(continued.status()).isEqualTo(200);
    assertThat(told).hasSize(1); // the 100 went nowhere
    after.release();
    continued.release();
  }

  @Test
  void aHeldAnswerWaitsForTheTryLoopThenGoesOut() {
    ByteBuf rest = headIn("HTTP/1.1 503 Busy\r\nContent-Length: 4\r\n\r\nbusy", true);
    assertThat(relay.phase()).isEqualTo(Phase.HOLDING);
    assertThat(relay.body(rest)).isEqualTo(BodyRead.ENDED);
    assertThat(told).as("held, not written").isEmpty();
    assertThat(relay.started()).isFalse();

    assertThat(relay.stopHolding()).isTrue();
    assertThat(relay.phase()).isEqualTo(Phase.HEAD_READ);
    assertThat(relay.stopHolding()).as("once").isFalse();
    assertThat(relay.hasHeld()).isTrue();

    assertThat(relay.sendHeld()).isTrue();
    assertThat(relay.phase()).isEqualTo(Phase.PASSED);
    assertThat(told)
        .containsExactly(
            "client <- HTTP/1.1 503 Busy\r\nContent-Length: 4\r\n\r\nbusy", "client flush");
    assertThat(relay.sendHeld()).as("nothing is held any more").isFalse();
  }

  @Test
  void aHeldAnswerOutlivesItsTryWhenARetryFollows() {
    ByteBuf rest = headIn("HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n", true);
    rest.release();
    relay.stopHolding();
    relay.reset(); // another try: its answer's head is read afresh
    assertThat(relay.phase()).isEqualTo(Phase.HEAD);
    assertThat(relay.headDone()).isFalse();
    assertThat(relay.hasHeld()).as("it goes out should the retry fail").isTrue();
  }

  @Test
  void anAnswerTooLargeToHoldPassesOnAsItIs() {
    ByteBuf rest = headIn("HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n", true);
    rest.release();
    assertThat(relay.body(bytes("10000\r\n"))).isEqualTo(BodyRead.MORE);
    assertThat(relay.phase()).isEqualTo(Phase.HOLDING);
    ByteBuf big = Unpooled.wrappedBuffer(new byte[ClientOutput.HOLD_LIMIT]);
    assertThat(relay.body(big)).isEqualTo(BodyRead.MORE);
    assertThat(relay.phase()).isEqualTo(Phase.PASSED);
    assertThat(relay.started()).as("a retry can no longer replace it").isTrue();
    assertThat(relay.stopHolding()).isFalse();
    assertThat(told).hasSize(2);
    assertThat(told.get(0)).startsWith("client <- HTTP/1.1 503 Busy\r\n");
  }

  @Test
  void bytesBeyondTheAnswerSpendTheMemberConnection() {
    ByteBuf rest = headIn("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA", false);
    assertThat(relay.body(rest)).isEqualTo(BodyRead.ENDED);
    assertThat(told)
        .containsExactly(
            "member connection spent", "client <- HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
  }

  @Test
  void anAnswerThatEndsWithTheConnectionClosesTheClientsToo() {
    ByteBuf rest = headIn("HTTP/1.1 200 OK\r\n\r\nsome", false);
    assertThat(told).containsExactly("member connection spent");
    assertThat(relay.closeClient()).isTrue();
    assertThat(relay.body(rest)).isEqualTo(BodyRead.MORE);
    assertThat(told.get(1)).containsIgnoringCase("connection: close").endsWith("\r\n\r\nsome");
  }

  @Test
  void aMalformedChunkIsSaid() {
    ByteBuf rest = headIn("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", false);
    rest.release();
    assertThat(relay.body(bytes("zz\r\n"))).isEqualTo(BodyRead.MALFORMED);
  }
}
