package dev.replicapool.dataplane.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The one place that decides what a malformed request gets, and what the member sees. */
class RequestHeadTest {
  static final byte[] VIA = "via: 1.1 replicapool-test".getBytes(StandardCharsets.ISO_8859_1);

  static ByteBuf buf(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
  }

  static RequestHead parsed(String request) {
    ByteBuf in = buf(request);
    int len = HeadScanner.headLength(in, 4096, 8192);
    assertThat(len).as("head length").isPositive();
    RequestHead h = new RequestHead();
    assertThat(h.parse(in, len)).isNull();
    return h;
  }

  static WireError refusal(String request) {
    ByteBuf in = buf(request);
    int len = HeadScanner.headLength(in, 4096, 8192);
    assertThat(len).as("head length").isPositive();
    return new RequestHead().parse(in, len);
  }

  static String upstream(String request) {
    RequestHead h = parsed(request);
    ByteBuf out = Unpooled.buffer();
    h.writeUpstream(out, "10.1.2.3", "http".getBytes(), VIA, null);
    return out.toString(StandardCharsets.ISO_8859_1);
  }

  @Test
  void theNextRequestOnAConnectionThatNamesTheSameHostReusesItsString() {
    RequestHead h = new RequestHead();
    String first = host(h, "GET / HTTP/1.1\r\nHost: a.example\r\n\r\n");
    String again = host(h, "GET /2 HTTP/1.1\r\nHost: a.example\r\n\r\n");
    String upper = host(h, "GET /3 HTTP/1.1\r\nHost: A.example\r\n\r\n");
    String longer = host(h, "GET /4 HTTP/1.1\r\nHost: A.example:8080\r\n\r\n");

    assertThat(again).isEqualTo("a.example").isSameAs(first);
    assertThat(upper).isEqualTo("A.example").isNotSameAs(first);
    assertThat(longer).isEqualTo("A.example:8080");
    assertThat(host(h, "GET / HTTP/1.0\r\n\r\n")).isNull();
    assertThat(host(h, "GET / HTTP/1.1\r\nHost: A.example:8080\r\n\r\n")).isSameAs(longer);
  }

  private static String host(RequestHead h, String request) {
    ByteBuf in = buf(request);
    assertThat(h.parse(in, HeadScanner.headLength(in, 4096, 8192))).isNull();
    return h.host();
  }

  @Test
  void aPlainGetGoesOutWithTheProxysHeadersAdded() {
    assertThat(upstream("GET /track/1 HTTP/1.1\r\nHost: a.example\r\nAccept: */*\r\n\r\n"))
        .isEqualTo(
            "GET /track/1 HTTP/1.1\r\nHost: a.example\r\nAccept: */*\r\n"
                + "x-forwarded-for: 10.1.2.3\r\nx-forwarded-proto: http\r\n"
                + "x-forwarded-host: a.example\r\nvia: 1.1 replicapool-test\r\n\r\n");
  }

  @Test
  void hopByHopHeadersAndThoseConnectionNamesAreDroppedAndForwardedForAppended() {
    String out =
        upstream(
            "GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, X-Secret\r\nX-Secret: 1\r\n"
                + "Keep-Alive: timeout=5\r\nTE: trailers\r\nProxy-Authorization: Basic x\r\n"
                + "X-Forwarded-For: 1.1.1.1\r\nX-Forwarded-Proto: https\r\nUpgrade: h2c\r\n"
                + "X-Kept: yes\r\n\r\n");
    assertThat(out.toLowerCase())
        .doesNotContain("x-secret")
        .doesNotContain("keep-alive")
        .doesNotContain("te: trailers")
        .doesNotContain("proxy-authorization")
        .doesNotContain("upgrade")
        .doesNotContain("x-forwarded-proto: https")
        .contains("x-forwarded-for: 1.1.1.1, 10.1.2.3\r\n")
        .contains("x-kept: yes\r\n");
  }

  @Test
  void http10GoesOutAsHttp11AndClosesAfter() {
    RequestHead h = parsed("GET / HTTP/1.0\r\n\r\n");
    assertThat(h.http10()).isTrue();
    assertThat(h.closeAfter()).isTrue();
    ByteBuf out = Unpooled.buffer();
    h.writeUpstream(out, null, "http".getBytes(), VIA, "m:1");
    assertThat(out.toString(StandardCharsets.ISO_8859_1))
        .startsWith("GET / HTTP/1.1\r\nhost: m:1\r\n");
  }

  @Test
  void bothContentLengthAndChunkedIsReadAsChunkedClosingAfter() {
    RequestHead h =
        parsed(
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n");
    assertThat(h.framing()).isEqualTo(RequestHead.Framing.CHUNKED);
    assertThat(h.closeAfter()).isTrue();
    ByteBuf out = Unpooled.buffer();
    h.writeUpstream(out, null, "http".getBytes(), VIA, null);
    assertThat(out.toString(StandardCharsets.ISO_8859_1).toLowerCase())
        .doesNotContain("content-length")
        .contains("transfer-encoding: chunked\r\n");
  }

  @Test
  void aPlainChunkedRequestKeepsItsConnection() {
    RequestHead h = parsed("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n");
    assertThat(h.framing()).isEqualTo(RequestHead.Framing.CHUNKED);
    assertThat(h.closeAfter()).isFalse();
  }

  @Test
  void aWebSocketUpgradeIsPassedOnWithItsHeaders() {
    String out =
        upstream(
            "GET /chat HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
                + "Sec-WebSocket-Key: x\r\n\r\n");
    assertThat(out)
        .contains("connection: upgrade\r\nupgrade: websocket\r\n")
        .contains("Sec-WebSocket-Key: x");
  }

  @Test
  void obsFoldIsJoinedWithASpace() {
    assertThat(upstream("GET / HTTP/1.1\r\nHost: a\r\nX-Folded: a\r\n  b\r\n\r\n"))
        .contains("X-Folded: a b\r\n");
  }

  @Test
  void aLoopIsSeenInVia() {
    RequestHead h =
        parsed("GET / HTTP/1.1\r\nHost: a\r\nVia: 1.1 other, 1.1 replicapool-test\r\n\r\n");
    assertThat(h.viaContains("replicapool-test".getBytes())).isTrue();
    assertThat(h.viaContains("replicapool-else".getBytes())).isFalse();
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "GET /track/1\\r\\n\\r\\n|400",
        "GET /x HTTP/7.3\\r\\nHost: a\\r\\n\\r\\n|505",
        "GET /x HTTP/1.x\\r\\nHost: a\\r\\n\\r\\n|400",
        "G<E>T /x HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n|400",
        "CONNECT a:1 HTTP/1.1\\r\\nHost: a:1\\r\\n\\r\\n|405",
        "GET /x HTTP/1.1\\r\\n\\r\\n|400",
        "GET /x HTTP/1.1\\r\\nHost: a\\r\\nHost: b\\r\\n\\r\\n|400",
        "GET /x HTTP/1.1\\r\\nHost: bad host!/x\\r\\n\\r\\n|400",
        "GET /x HTTP/1.1\\r\\nHost: user@a\\r\\n\\r\\n|400",
        "GET http://evil/x HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n|400",
        "GET /x HTTP/1.1\\r\\nHost : a\\r\\n\\r\\n|400",
        "GET /x HTTP/1.1\\r\\nHost: a\\r\\nX-Nul: a\\u0000b\\r\\n\\r\\n|400",
        "GET /x HTTP/1.1\\r\\nHost: a\\r\\nX(y): 1\\r\\n\\r\\n|400",
        "POST /x HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 5, 6\\r\\n\\r\\n|400",
        "POST /x HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: +5\\r\\n\\r\\n|400",
        "POST /x HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: -1\\r\\n\\r\\n|400",
        "POST /x HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 99999999999999999999\\r\\n\\r\\n|400",
        "POST /x HTTP/1.1\\r\\nHost: a\\r\\nContent-Length: 5\\r\\nContent-Length: 6\\r\\n\\r\\n|400",
        "POST /x HTTP/1.1\\r\\nHost: a\\r\\nTransfer-Encoding: chunked, gzip\\r\\n\\r\\n|400",
        "POST /x HTTP/1.1\\r\\nHost: a\\r\\nTransfer-Encoding: xchunked\\r\\n\\r\\n|501",
      })
  void malformedRequestsAreRefused(String request, int status) {
    String raw = request.replace("\\r", "\r").replace("\\n", "\n").replace("\\u0000", "\u0000");
    WireError e = refusal(raw);
    assertThat(e).as(request).isNotNull();
    assertThat(e.status()).isEqualTo(status);
  }

  @Test
  void limitsOfTheHeadAre414And431() {
    assertThat(
            HeadScanner.headLength(
                buf("GET /" + "a".repeat(5000) + " HTTP/1.1\r\n\r\n"), 4096, 8192))
        .isEqualTo(HeadScanner.LINE_TOO_LONG);
    assertThat(
            HeadScanner.headLength(
                buf("GET / HTTP/1.1\r\nX: " + "b".repeat(9000) + "\r\n\r\n"), 4096, 8192))
        .isEqualTo(HeadScanner.HEADERS_TOO_LARGE);
    assertThat(HeadScanner.headLength(buf("GET / HTTP/1.1\r\nHost: a\r\n"), 4096, 8192))
        .isEqualTo(HeadScanner.INCOMPLETE);
  }
}
