package dev.replicapool.dataplane.forward;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A fake client connection and a fake member side of one HTTP/1.x exchange, for the unit tests of
 * the answer's relays: each writes down what it is told, in order, and keeps every buffer handed
 * over until {@link #releaseAll}.
 */
final class FakeHttp1Sides {
  /** What the client connection and the member side were told, in order. */
  final List<String> told = new ArrayList<>();

  /** Every buffer handed over. */
  final List<ByteBuf> handed = new ArrayList<>();

  boolean fullDuplex;
  boolean requestEnded;

  final ResponseRelay.Client client =
      new ResponseRelay.Client() {
        @Override
        public ByteBufAllocator alloc() {
          return ByteBufAllocator.DEFAULT;
        }

        @Override
        public boolean fullDuplex() {
          return fullDuplex;
        }

        @Override
        public boolean http10() {
          return false;
        }

        @Override
        public boolean draining() {
          return false;
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

  final ResponseRelay.Request member = () -> told.add("member connection spent");

  static ByteBuf bytes(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
  }

  void releaseAll() {
    handed.stream().filter(b -> b.refCnt() > 0).forEach(b -> b.release(b.refCnt()));
  }
}
