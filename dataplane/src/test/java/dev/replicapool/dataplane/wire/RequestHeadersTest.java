package dev.replicapool.dataplane.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The header lines' meaning on its own, without a request line (RequestHeadTest has the rest). */
class RequestHeadersTest {
  static RequestHeaders read(String block) {
    byte[] b = block.getBytes(StandardCharsets.ISO_8859_1);
    RequestHeaders h = new RequestHeaders();
    h.reset(b);
    assertThat(HeadScanner.headers(b, 0, b.length, h)).isNull();
    assertThat(h.read()).isNull();
    return h;
  }

  @Test
  void theSameContentLengthTwiceIsOneLine() {
    RequestHeaders h = read("Content-Length: 5\r\ncontent-length: 5\r\n");
    assertThat(h.conclude(true, 0, 0)).isNull();
    assertThat(h.framing()).isEqualTo(RequestHead.Framing.LENGTH);
    assertThat(h.contentLength()).isEqualTo(5);
    assertThat(h.dropped(0)).isFalse();
    assertThat(h.dropped(1)).isTrue();
  }

  @Test
  void expectContinueAndForwardedForAreTakenOut() {
    RequestHeaders h =
        read(
            "Host: a\r\nExpect: 100-Continue\r\nX-Forwarded-For: 1.1.1.1\r\nX-Forwarded-For: 2.2.2.2\r\n");
    assertThat(h.conclude(false, 0, 0)).isNull();
    assertThat(h.expectContinue()).isTrue();
    assertThat(h.forwardedFor()).isEqualTo("1.1.1.1, 2.2.2.2");
    assertThat(h.hostValue()).isEqualTo("a");
    assertThat(h.hostLine()).isZero();
    assertThat(h.dropped(1)).isTrue();
    assertThat(h.dropped(2)).isTrue();
  }

  @Test
  void anUpgradeNeedsConnectionUpgradeAndIsNeverH2c() {
    RequestHeaders ws = read("Host: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n");
    assertThat(ws.conclude(false, 0, 0)).isNull();
    assertThat(ws.upgradeLine()).isEqualTo(2);
    RequestHeaders alone = read("Host: a\r\nUpgrade: websocket\r\n");
    assertThat(alone.conclude(false, 0, 0)).isNull();
    assertThat(alone.upgradeLine()).isEqualTo(-1);
    RequestHeaders h2c = read("Host: a\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n");
    assertThat(h2c.conclude(false, 0, 0)).isNull();
    assertThat(h2c.upgradeLine()).isEqualTo(-1);
  }

  @Test
  void aSecondTransferEncodingLineIs400() {
    byte[] b =
        "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"
            .getBytes(StandardCharsets.ISO_8859_1);
    RequestHeaders h = new RequestHeaders();
    h.reset(b);
    assertThat(HeadScanner.headers(b, 0, b.length, h)).isNull();
    assertThat(h.read()).isEqualTo(WireError.badRequest("transfer-encoding must be chunked alone"));
  }

  @Test
  void anHttp10RequestMayLackHostButClosesAfter() {
    RequestHeaders h = read("Accept: */*\r\n");
    assertThat(h.conclude(true, 0, 0)).isNull();
    assertThat(h.hostValue()).isNull();
    assertThat(h.closeAfter()).isTrue();
    assertThat(read("Accept: */*\r\n").conclude(false, 0, 0))
        .isEqualTo(WireError.badRequest("missing Host header"));
  }

  @Test
  void aConnectionHeaderThatNamesAFramingHeaderIsRefused() {
    // Dropping Content-Length as hop-by-hop would send the body unframed: the member would read
    // it as the next request.
    for (String named : new String[] {"Content-Length", "transfer-encoding", "HOST"}) {
      byte[] b =
          ("Host: a\r\nConnection: keep-alive, " + named + "\r\nContent-Length: 5\r\n")
              .getBytes(StandardCharsets.ISO_8859_1);
      RequestHeaders h = new RequestHeaders();
      h.reset(b);
      assertThat(HeadScanner.headers(b, 0, b.length, h)).isNull();
      WireError e = h.read();
      assertThat(e).as(named).isNotNull();
      assertThat(e.status()).isEqualTo(400);
    }
    RequestHeaders other = read("Host: a\r\nConnection: X-Hop\r\nX-Hop: 1\r\n");
    assertThat(other.dropped(2)).isTrue(); // any other field it names still goes
  }
}
