package dev.replicapool.dataplane.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResponseHeadTest {
  static ResponseHead parse(String s, boolean head) {
    ByteBuf b = Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
    ResponseHead r = new ResponseHead();
    assertThat(r.parse(b, HeadScanner.headLength(b, 8192, 8192), head)).isNull();
    return r;
  }

  static String downstream(ResponseHead r, boolean close) {
    ByteBuf out = Unpooled.buffer();
    r.writeDownstream(out, close, null);
    return out.toString(StandardCharsets.ISO_8859_1);
  }

  @Test
  void framingFollowsTheStatusTheRequestAndTheHeaders() {
    assertThat(parse("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", false).framing())
        .isEqualTo(ResponseHead.Framing.LENGTH);
    assertThat(parse("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", true).framing())
        .isEqualTo(ResponseHead.Framing.NONE);
    assertThat(parse("HTTP/1.1 204 No Content\r\n\r\n", false).framing())
        .isEqualTo(ResponseHead.Framing.NONE);
    assertThat(
            parse(
                    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\n\r\n",
                    false)
                .framing())
        .isEqualTo(ResponseHead.Framing.CHUNKED);
    ResponseHead untilClose = parse("HTTP/1.0 200 OK\r\n\r\n", false);
    assertThat(untilClose.framing()).isEqualTo(ResponseHead.Framing.UNTIL_CLOSE);
    assertThat(untilClose.memberCloses()).isTrue();
    assertThat(parse("HTTP/1.1 100 Continue\r\n\r\n", false).interim()).isTrue();
  }

  @Test
  void hopByHopHeadersAreDroppedAndTheProxysConnectionDecisionAdded() {
    ResponseHead r =
        parse(
            "HTTP/1.1 200 OK\r\nConnection: keep-alive, X-Hop\r\nX-Hop: 1\r\nKeep-Alive: timeout=5\r\n"
                + "Content-Length: 2\r\nX-Replica: k1\r\n\r\n",
            false);
    assertThat(downstream(r, true))
        .isEqualTo(
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Replica: k1\r\nconnection: close\r\n\r\n");
    assertThat(r.memberCloses()).isFalse();
  }

  @Test
  void aLoadReportIsReadAndDroppedUnlessThePoolForwardsIt() {
    String answer =
        "HTTP/1.1 200 OK\r\nendpoint-load-metrics: TEXT application_utilization=0.9,"
            + " named_metrics.in_flight=3\r\nContent-Length: 0\r\n\r\n";
    ResponseHead dropped = parse(answer, false);
    assertThat(dropped.loadReport().inFlight()).isEqualTo(3.0);
    assertThat(downstream(dropped, false)).doesNotContain("endpoint-load-metrics");

    ByteBuf b = Unpooled.copiedBuffer(answer, StandardCharsets.ISO_8859_1);
    ResponseHead kept = new ResponseHead();
    assertThat(kept.parse(b, HeadScanner.headLength(b, 8192, 8192), false, true)).isNull();
    assertThat(kept.loadReport().utilization()).isEqualTo(0.9);
    assertThat(downstream(kept, false))
        .contains(
            "\r\nendpoint-load-metrics: TEXT application_utilization=0.9,"
                + " named_metrics.in_flight=3\r\n");
    assertThat(kept.parse(b, HeadScanner.headLength(b, 8192, 8192), false)).isNull();
    assertThat(downstream(kept, false))
        .as("the next answer on the connection, to a pool that does not forward it")
        .doesNotContain("endpoint-load-metrics");
  }

  @Test
  void aSwitchToWebSocketKeepsItsUpgradeHeaders() {
    ResponseHead r =
        parse(
            "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
            false);
    assertThat(downstream(r, false)).contains("connection: upgrade\r\nupgrade: websocket\r\n");
  }

  @Test
  void anAnswerWhoseConnectionNamesContentLengthIsInvalid() {
    ByteBuf b =
        Unpooled.copiedBuffer(
            "HTTP/1.1 200 OK\r\nConnection: Content-Length\r\nContent-Length: 3\r\n\r\n",
            StandardCharsets.ISO_8859_1);
    assertThat(new ResponseHead().parse(b, HeadScanner.headLength(b, 8192, 8192), false))
        .contains("content-length");
  }
}
