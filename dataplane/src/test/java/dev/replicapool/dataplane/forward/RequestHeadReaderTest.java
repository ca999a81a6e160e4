package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.proxy.ProxySettings;
import dev.replicapool.dataplane.proxy.ProxySettingsBuilder;
import dev.replicapool.dataplane.wire.RequestHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestHeadReaderTest {
  private static final ProxySettings SETTINGS =
      ProxySettingsBuilder.builder(ProxySettings.defaults())
          .maxInitialLineLength(64)
          .maxHeaderSize(256)
          .maxBodyBytes(100)
          .build();

  private final RequestHead head = new RequestHead();

  private static ByteBuf buf(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
  }

  @Test
  void skipsEmptyLinesThenParsesAndSkipsTheHead() {
    RequestHeadReader r = new RequestHeadReader(SETTINGS, head, false);
    String h = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n";
    ByteBuf in = buf("\r\n\r\n" + h + "next");
    assertThat(r.read(in)).isEqualTo(h.length());
    assertThat(in.toString(StandardCharsets.ISO_8859_1)).isEqualTo("next");
    assertThat(head.host()).isEqualTo("x");
    in.release();
  }

  @Test
  void waitsForTheRestOfAHead() {
    RequestHeadReader r = new RequestHeadReader(SETTINGS, head, false);
    ByteBuf in = buf("GET /a HTTP/1.1\r\nHost: x\r\n");
    assertThat(r.read(in)).isEqualTo(RequestHeadReader.INCOMPLETE);
    assertThat(in.readerIndex()).isZero();
    in.release();
  }

  @Test
  void refusesWhatIsTooLargeWithItsStatus() {
    assertThat(refusal("GET /" + "a".repeat(80) + " HTTP/1.1\r\nHost: x\r\n\r\n")).isEqualTo(414);
    assertThat(refusal("GET / HTTP/1.1\r\nHost: x\r\nX: " + "b".repeat(300) + "\r\n\r\n"))
        .isEqualTo(431);
    assertThat(refusal("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n")).isEqualTo(413);
    assertThat(refusal("GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n")).isEqualTo(400);
  }

  @Test
  void withH2cAFirstLineOfThreeWordsThatIsNotHttp1EndsTheConnection() {
    RequestHeadReader r = new RequestHeadReader(SETTINGS, head, true);
    ByteBuf in = buf("HELLO THERE FRIEND\r\n\r\n");
    assertThat(r.read(in)).isEqualTo(RequestHeadReader.NOT_HTTP);
    in.release();
  }

  @Test
  void tellsTheHttp2PrefaceOnceItCan() {
    ByteBuf partial = buf("PRI * HTTP/2.0\r\n");
    ByteBuf whole = buf("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\nrest");
    ByteBuf other = buf("GET / HTTP/1.1\r\n");
    assertThat(RequestHeadReader.preface(partial)).isZero();
    assertThat(RequestHeadReader.preface(whole)).isEqualTo(1);
    assertThat(RequestHeadReader.preface(other)).isEqualTo(-1);
    partial.release();
    whole.release();
    other.release();
  }

  private int refusal(String request) {
    RequestHeadReader r = new RequestHeadReader(SETTINGS, new RequestHead(), false);
    ByteBuf in = buf(request);
    assertThat(r.read(in)).as(request).isEqualTo(RequestHeadReader.REFUSED);
    in.release();
    return r.error().status();
  }
}
