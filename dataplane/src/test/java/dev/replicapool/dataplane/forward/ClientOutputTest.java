package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.forward.ClientOutput.Answer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Where an HTTP/1.x answer stands against the client's body, transition by transition, with a fake
 * client connection and a fake relay to the member that write down what they are told.
 */
class ClientOutputTest {
  final FakeHttp1Sides sides = new FakeHttp1Sides();
  final List<String> told = sides.told;
  final List<ByteBuf> handed = sides.handed;
  final ClientOutput out = new ClientOutput(sides.client, sides.request);

  @AfterEach
  void release() {
    out.release();
    sides.releaseAll();
  }

  static ByteBuf bytes(String s) {
    return FakeHttp1Sides.bytes(s);
  }

  @Test
  void anAnswerToAWholeRequestFlowsAsItComes() {
    sides.requestEnded = true;
    out.write(bytes("HTTP/1.1 200 OK\r\n\r\n"));
    assertThat(out.answer()).isEqualTo(Answer.FLOWING);
    assertThat(out.wroteToClient()).isTrue();

    assertThat(out.completeNow()).isTrue();
    assertThat(out.answer()).isEqualTo(Answer.WHOLE);
    assertThat(told).containsExactly("client <- HTTP/1.1 200 OK\r\n\r\n");
    assertThat(out.written()).isEqualTo(19);
  }

  @Test
  void anAnswerWhileTheClientSendsIsKeptUntilItsBodyEndsThenFlows() {
    out.write(bytes("HTTP/1.1 200 OK\r\n\r\n"));
    assertThat(out.answer()).isEqualTo(Answer.KEPT);
    assertThat(out.wroteToClient()).as("the proxy may still answer instead").isFalse();

    assertThat(out.clientBody(bytes("abc"), false, false)).isFalse();
    assertThat(out.readEnded()).as("the body goes on").isFalse();
    assertThat(out.clientBody(bytes("def"), true, false)).isFalse();
    assertThat(out.readEnded()).as("the body ended in this read").isTrue();
    assertThat(out.releaseKept()).as("the answer is not complete yet").isFalse();
    assertThat(out.answer()).isEqualTo(Answer.FLOWING);
    assertThat(out.readEnded()).as("nothing is kept any more").isFalse();

    out.write(bytes("rest"));
    assertThat(out.completeNow()).isTrue();
    assertThat(out.answer()).isEqualTo(Answer.WHOLE);
    assertThat(told)
        .containsExactly(
            "member <- abc",
            "member body ends",
            "member <- def",
            "client <- HTTP/1.1 200 OK\r\n\r\n",
            "client flush",
            "member reads on",
            "client <- rest");
  }

  @Test
  void aWholeAnswerKeptWhileTheClientSendsEndsTheExchangeWithTheBodyAndDropsTheRest() {
    out.write(bytes("HTTP/1.1 413 Payload Too Large\r\n\r\n"));
    assertThat(out.completeNow()).as("the client still sends").isFalse();
    assertThat(out.answer()).isEqualTo(Answer.KEPT_WHOLE);
    assertThat(out.wroteToClient()).isFalse();

    ByteBuf dropped = bytes("more");
    assertThat(out.clientBody(dropped, false, false)).isFalse();
    assertThat(dropped.refCnt()).as("not for the member: its answer is complete").isZero();
    assertThat(out.clientBody(bytes("last"), true, false))
        .as("the body ended in dropped bytes: the answer goes now")
        .isTrue();
    assertThat(out.releaseKept()).as("and the exchange ends").isTrue();
    assertThat(out.answer()).isEqualTo(Answer.WHOLE);
    assertThat(out.wroteToClient()).isTrue();
    assertThat(told)
        .containsExactly(
            "member body ends",
            "client <- HTTP/1.1 413 Payload Too Large\r\n\r\n",
            "client flush",
            "member reads on");
  }

  @Test
  void pastTheHoldLimitTheMemberIsNotReadUntilTheBodyEnds() {
    out.write(Unpooled.wrappedBuffer(new byte[ClientOutput.HOLD_LIMIT]));
    assertThat(told).isEmpty();
    out.write(bytes("x"));
    assertThat(told).containsExactly("member reads off");
    assertThat(out.written()).isEqualTo(ClientOutput.HOLD_LIMIT + 1L);

    out.clientBody(bytes(""), true, false);
    assertThat(out.readEnded()).isTrue();
    out.releaseKept();
    assertThat(told).endsWith("client flush", "member reads on");
    assertThat(handed.get(handed.size() - 1).readableBytes())
        .isEqualTo(ClientOutput.HOLD_LIMIT + 1);
  }

  @Test
  void aClientThatReadsWhileItSendsGetsTheAnswerAtOnce() {
    sides.fullDuplex = true; // an HTTP/2 stream
    out.write(bytes("HTTP/1.1 200 OK\r\n\r\n"));
    assertThat(out.answer()).isEqualTo(Answer.FLOWING);
    assertThat(out.completeNow()).as("the body need not end first").isTrue();
    assertThat(out.answer()).isEqualTo(Answer.WHOLE);

    ByteBuf late = bytes("late");
    assertThat(out.clientBody(late, true, false)).isTrue();
    assertThat(late.refCnt()).isZero();
  }

  @Test
  void aKeptAnswerIsDroppedWhenTheProxyAnswersInstead() {
    out.write(bytes("HTTP/1.1 200 OK\r\n\r\n"));
    assertThat(out.wroteToClient()).isFalse();
    out.release(); // the exchange finished with its own answer (413, 408)
    assertThat(told).isEmpty();
    assertThat(out.readEnded()).isFalse();
  }

  @Test
  void bodyBytesAfterTheExchangeFinishedAreDropped() {
    ByteBuf b = bytes("abc");
    assertThat(out.clientBody(b, false, true)).isFalse();
    assertThat(b.refCnt()).isZero();
    assertThat(out.answer()).isEqualTo(Answer.NONE);
    assertThat(told).isEmpty();
  }

  @Test
  void aWholeAnswerReleasedAgainStaysWhole() {
    sides.requestEnded = true;
    out.write(bytes("HTTP/1.1 204 No Content\r\n\r\n"));
    out.completeNow();
    assertThat(out.releaseKept()).isFalse();
    assertThat(out.answer()).isEqualTo(Answer.WHOLE);
  }
}
