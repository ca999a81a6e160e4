package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.forward.ClientOutput.Answer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Where an HTTP/1.x answer stands against the client's body, transition by transition, with a fake
 * client connection and a fake relay to the member that write down what they are told.
 */
class ClientOutputTest {
  /** What the client connection and the member's relay were told, in order. */
  final List<String> told = new ArrayList<>();

  /** Every buffer handed over, released at the end. */
  final List<ByteBuf> handed = new ArrayList<>();

  boolean fullDuplex;
  boolean requestEnded;

  final ClientOutput.Client client =
      new ClientOutput.Client() {
        @Override
        public ByteBufAllocator alloc() {
          return ByteBufAllocator.DEFAULT;
        }

        @Override
        public boolean fullDuplex() {
          return fullDuplex;
        }

        @Override
        public void write(ByteBuf b) {
          told.add("client <- " + b.toString(StandardCharsets.US_ASCII));
          handed.add(b);
        }

        @Override
        public void flush() {
          told.add("client flush");
        }
      };

  final ClientOutput.Request request =
      new ClientOutput.Request() {
        @Override
        public boolean ended() {
          return requestEnded;
        }

        @Override
        public void end() {
          requestEnded = true;
          told.add("member body ends");
        }

        @Override
        public void body(ByteBuf bytes) {
          told.add("member <- " + bytes.toString(StandardCharsets.US_ASCII));
          handed.add(bytes);
        }

        @Override
        public void memberReads(boolean on) {
          told.add("member reads " + (on ? "on" : "off"));
        }
      };

  final ClientOutput out = new ClientOutput(client, request);

  @AfterEach
  void release() {
    out.release();
    handed.stream().filter(b -> b.refCnt() > 0).forEach(b -> b.release(b.refCnt()));
  }

  static ByteBuf bytes(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
  }

  @Test
  void anAnswerToAWholeRequestFlowsAsItComes() {
    requestEnded = true;
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
    fullDuplex = true; // an HTTP/2 stream
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
    requestEnded = true;
    out.write(bytes("HTTP/1.1 204 No Content\r\n\r\n"));
    out.completeNow();
    assertThat(out.releaseKept()).isFalse();
    assertThat(out.answer()).isEqualTo(Answer.WHOLE);
  }
}
