package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ReadBufferTest {
  final ByteBufAllocator alloc = new UnpooledByteBufAllocator(false);
  final ReadBuffer in = new ReadBuffer();

  ByteBuf bytes(String s) {
    return alloc.buffer(s.length(), s.length()).writeBytes(s.getBytes(StandardCharsets.US_ASCII));
  }

  @Test
  void theFirstReadIsKeptAsItIs() {
    ByteBuf first = bytes("GET / HT");
    in.add(first);
    assertThat(in.peek()).isSameAs(first);
    assertThat(in.readableBytes()).isEqualTo(8);
  }

  @Test
  void laterReadsAreCopiedAfterTheFirstAndReleased() {
    in.add(bytes("GET / HT"));
    ByteBuf second = bytes("TP/1.1\r\n");
    in.add(second);
    assertThat(in.peek().toString(StandardCharsets.US_ASCII)).isEqualTo("GET / HTTP/1.1\r\n");
    assertThat(second.refCnt()).isZero();
  }

  @Test
  void aReadAfterEverythingWasUsedReplacesTheEmptyBuffer() {
    ByteBuf first = bytes("abc");
    in.add(first);
    first.skipBytes(3);
    assertThat(in.hasBytes()).isFalse();
    ByteBuf next = bytes("def");
    in.add(next);
    assertThat(first.refCnt()).isZero();
    assertThat(in.peek()).isSameAs(next);
  }

  @Test
  void aBufferSharedElsewhereIsCopiedNotWrittenInto() {
    ByteBuf first = alloc.buffer(64).writeBytes("abc".getBytes(StandardCharsets.US_ASCII));
    first.retain(); // a slice of it went on with the request before
    in.add(first);
    in.add(bytes("def"));
    assertThat(in.peek()).isNotSameAs(first);
    assertThat(in.peek().toString(StandardCharsets.US_ASCII)).isEqualTo("abcdef");
    assertThat(first.writerIndex()).as("nothing written into it").isEqualTo(3);
    assertThat(first.toString(0, 3, StandardCharsets.US_ASCII)).isEqualTo("abc");
    assertThat(first.refCnt()).isEqualTo(1);
  }

  @Test
  void takeAllHandsTheBytesOverAndLeavesItEmpty() {
    ByteBuf first = bytes("body");
    in.add(first);
    assertThat(in.takeAll()).isSameAs(first);
    assertThat(in.hasBytes()).isFalse();
    assertThat(in.peek()).isNull();
    assertThat(in.takeAll()).isNull();
  }

  @Test
  void releaseIfUsedUpKeepsWhatIsLeftAndReleaseDropsIt() {
    ByteBuf first = bytes("GET");
    in.add(first);
    in.releaseIfUsedUp();
    assertThat(first.refCnt()).isEqualTo(1);
    first.skipBytes(3);
    in.releaseIfUsedUp();
    assertThat(first.refCnt()).isZero();
    assertThat(in.peek()).isNull();

    ByteBuf second = bytes("left over");
    in.add(second);
    in.release();
    assertThat(second.refCnt()).isZero();
    in.release(); // twice is harmless
  }
}
