package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.dataplane.accesslog.AccessLog;
import dev.replicapool.dataplane.config.RoutingTable;
import dev.replicapool.dataplane.proxy.ProxyObserver;
import dev.replicapool.dataplane.proxy.ProxySettings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One client connection's reading, transition by transition ({@code Http1Connection.Reading}):
 * heads one at a time, a body passed on or dropped after an early answer, the next request after
 * it, the close. No pool is published, so every request is answered by the proxy itself (404, no
 * pool matches its host): what is tested is where the connection's reading stands, not forwarding.
 */
class Http1ConnectionTest {
  static final String GET = "GET /a HTTP/1.1\r\nHost: nowhere.example\r\n\r\n";
  static final String NOT_FOUND = "HTTP/1.1 404 Not Found";

  final List<ByteBuf> switchedToH2 = new ArrayList<>();
  EmbeddedChannel channel;

  Http1Connection connection(boolean h2cPreface) {
    Forwarding fw =
        new Forwarding(
            ProxySettings.defaults(),
            () -> RoutingTable.EMPTY,
            ProxyObserver.NONE,
            System::nanoTime,
            "test",
            null,
            AccessLog.OFF,
            null);
    Http1Setup.H2Switch h2 =
        (ChannelHandlerContext ctx, ByteBuf received) -> switchedToH2.add(received);
    Http1Connection c = new Http1Connection(fw, new Http1Setup(null, false, h2cPreface, h2, false));
    channel = new EmbeddedChannel(c);
    return c;
  }

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
    switchedToH2.forEach(ByteBuf::release);
  }

  void send(String bytes) {
    channel.writeInbound(Unpooled.copiedBuffer(bytes, StandardCharsets.ISO_8859_1));
  }

  /** Every answer written so far, as one string. */
  String answers() {
    StringBuilder all = new StringBuilder();
    for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
      all.append(b.toString(StandardCharsets.ISO_8859_1));
      b.release();
    }
    return all.toString();
  }

  /** The connection reads no more and is closed. */
  void assertClosed(Http1Connection c) {
    channel.runPendingTasks();
    assertThat(c.closing()).isTrue();
    assertThat(channel.isOpen()).isFalse();
  }

  static int count(String s, String part) {
    int n = 0;
    for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrderAndTheConnectionStaysOpen() {
    Http1Connection c = connection(false);
    send(GET + GET.replace("/a", "/b"));
    String out = answers();
    assertThat(count(out, NOT_FOUND)).isEqualTo(2);
    assertThat(out).doesNotContain("connection: close");
    assertThat(c.closing()).isFalse();
    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void aBodyAnsweredEarlyIsDroppedAndTheRequestAfterItIsRead() {
    Http1Connection c = connection(false);
    send("POST /a HTTP/1.1\r\nHost: nowhere.example\r\nContent-Length: 10\r\n\r\n12345");
    assertThat(count(answers(), NOT_FOUND)).as("answered at its head").isEqualTo(1);
    send("67890" + GET); // the rest of the body (dropped), then the next request in the same read
    assertThat(count(answers(), NOT_FOUND)).as("the next request, not the body").isEqualTo(1);
    assertThat(c.closing()).isFalse();
  }

  @Test
  void aChunkedBodyAnsweredEarlyIsDroppedToItsLastChunk() {
    Http1Connection c = connection(false);
    send(
        "POST /a HTTP/1.1\r\nHost: nowhere.example\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    assertThat(count(answers(), NOT_FOUND)).isEqualTo(1);
    send("3\r\nabc\r\n");
    assertThat(answers()).as("a chunk more: still the body").isEmpty();
    send("0\r\n\r\n" + GET);
    assertThat(count(answers(), NOT_FOUND)).as("the request after the last chunk").isEqualTo(1);
    assertThat(c.closing()).isFalse();
  }

  @Test
  void aMalformedHeadIsRefusedAndNothingMoreIsRead() {
    Http1Connection c = connection(false);
    send("GET /a HTTP/1.1\r\nHost: nowhere.example\r\nno colon here\r\n\r\n" + GET);
    String out = answers();
    assertThat(out).startsWith("HTTP/1.1 400 Bad Request").contains("connection: close");
    assertThat(count(out, "HTTP/1.1 ")).as("the request after it is not read").isEqualTo(1);
    assertClosed(c);
  }

  @Test
  void withH2cOnAFirstLineThatIsNeitherHttp1NorThePrefaceClosesTheConnectionUnanswered() {
    Http1Connection c = connection(true);
    send("BREW /pot HTCPCP/1.0\r\n\r\n");
    assertThat(answers()).isEmpty();
    assertClosed(c);
  }

  @Test
  void connectionCloseIsAnsweredThenClosed() {
    Http1Connection c = connection(false);
    send("GET /a HTTP/1.1\r\nHost: nowhere.example\r\nConnection: close\r\n\r\n" + GET);
    String out = answers();
    assertThat(count(out, NOT_FOUND)).as("what follows the close is not read").isEqualTo(1);
    assertThat(out).contains("connection: close");
    assertClosed(c);
  }

  /** A half-close after a whole request, and one that cuts a body off: answered, then closed. */
  @Test
  void aClientThatHalfClosesIsAnsweredThenClosedEvenMidBody() {
    for (String request :
        List.of(
            GET, "POST /a HTTP/1.1\r\nHost: nowhere.example\r\nContent-Length: 10\r\n\r\n123")) {
      Http1Connection c = connection(false);
      send(request);
      assertThat(count(answers(), NOT_FOUND)).isEqualTo(1);
      channel.pipeline().fireUserEventTriggered(ChannelInputShutdownEvent.INSTANCE);
      assertClosed(c);
    }
  }

  @Test
  void drainingClosesAnIdleConnectionAtOnceAndOneInABodyOnlyAfterIt() {
    connection(false);
    Http1Connection.drain(channel);
    assertThat(channel.isOpen()).as("idle: closed at once").isFalse();

    Http1Connection c = connection(false);
    send("POST /a HTTP/1.1\r\nHost: nowhere.example\r\nContent-Length: 4\r\n\r\n12");
    answers();
    Http1Connection.drain(channel);
    assertThat(channel.isOpen()).as("in a body: kept until it ends").isTrue();
    send("34");
    assertClosed(c);
  }

  @Test
  void withH2cOnAnHttp1RequestIsReadAsOne() {
    Http1Connection c = connection(true);
    send(GET);
    assertThat(count(answers(), NOT_FOUND)).isEqualTo(1);
    assertThat(switchedToH2).isEmpty();
    assertThat(c.closing()).isFalse();
  }

  @Test
  void withH2cOnThePrefaceHandsTheConnectionAndItsBytesToHttp2() {
    Http1Connection c = connection(true);
    send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + "\0\0\0\4\0\0\0\0\0");
    assertThat(switchedToH2).hasSize(1);
    assertThat(switchedToH2.get(0).toString(StandardCharsets.ISO_8859_1))
        .startsWith("PRI * HTTP/2.0")
        .endsWith("\0\0\0\4\0\0\0\0\0");
    assertThat(c.closing()).as("this handler reads no more").isTrue();
    send(GET);
    assertThat(answers()).isEmpty();
  }
}
