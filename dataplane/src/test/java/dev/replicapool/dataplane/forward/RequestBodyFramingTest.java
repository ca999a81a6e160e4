package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.wire.RequestHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestBodyFramingTest {
  private static ByteBuf buf(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
  }

  private static RequestHead head(String headers) {
    RequestHead h = new RequestHead();
    ByteBuf b = buf("POST / HTTP/1.1\r\nHost: x\r\n" + headers + "\r\n");
    assertThat(h.parse(b, b.readableBytes())).isNull();
    b.release();
    return h;
  }

  @Test
  void aContentLengthBodyEndsAfterItsLengthAcrossReads() {
    RequestBodyFraming f = new RequestBodyFraming(100);
    f.begin(head("Content-Length: 8\r\n"));
    ByteBuf a = buf("hello");
    assertThat(f.take(a)).isEqualTo(5);
    assertThat(f.last()).isFalse();
    ByteBuf b = buf("abcGET /next");
    assertThat(f.take(b)).isEqualTo(3);
    assertThat(f.last()).isTrue();
    a.release();
    b.release();
  }

  @Test
  void aChunkedBodyEndsAtItsLastChunk() {
    RequestBodyFraming f = new RequestBodyFraming(100);
    f.begin(head("Transfer-Encoding: chunked\r\n"));
    String body = "5\r\nhello\r\n0\r\n\r\n";
    ByteBuf a = buf(body + "GET /next");
    assertThat(f.take(a)).isEqualTo(body.length());
    assertThat(f.last()).isTrue();
    a.release();
  }

  @Test
  void aBrokenOrTooLargeChunkedBodyIsSaidSo() {
    RequestBodyFraming f = new RequestBodyFraming(4);
    f.begin(head("Transfer-Encoding: chunked\r\n"));
    ByteBuf large = buf("5\r\nhello\r\n");
    assertThat(f.take(large)).isEqualTo(RequestBodyFraming.TOO_LARGE);
    f.begin(head("Transfer-Encoding: chunked\r\n"));
    ByteBuf broken = buf("zz\r\nhello\r\n");
    assertThat(f.take(broken)).isEqualTo(RequestBodyFraming.MALFORMED);
    large.release();
    broken.release();
  }
}
