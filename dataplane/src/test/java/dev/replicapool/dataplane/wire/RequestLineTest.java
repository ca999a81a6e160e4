package dev.replicapool.dataplane.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestLineTest {
  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void findsTheSpacesAroundTheTarget() {
    byte[] line = b("GET /x?y HTTP/1.1");
    int sp1 = RequestLine.methodEnd(line, line.length);
    assertThat(sp1).isEqualTo(3);
    assertThat(RequestLine.targetEnd(line, sp1 + 1, line.length)).isEqualTo(8);
    assertThat(RequestLine.version(line, 9, line.length)).isNull();
    assertThat(RequestLine.method(line, sp1)).isEqualTo(RequestHead.Method.GET);
  }

  @Test
  void saysWhatIsWrongWithEachPart() {
    byte[] method = b("G(T / HTTP/1.1");
    assertThat(RequestLine.methodEnd(method, method.length)).isEqualTo(RequestLine.INVALID);
    byte[] noSpace = b("GET");
    assertThat(RequestLine.methodEnd(noSpace, noSpace.length)).isEqualTo(-1);
    byte[] control = b("GET /\u0001 HTTP/1.1");
    assertThat(RequestLine.targetEnd(control, 4, control.length)).isEqualTo(RequestLine.INVALID);
    byte[] http09 = b("GET /x");
    assertThat(RequestLine.targetEnd(http09, 4, http09.length)).isEqualTo(-1);
  }

  @Test
  void versionsOtherThanOnePointZeroOrOneAre505AndGarbageIs400() {
    assertThat(RequestLine.version(b("HTTP/1.0"), 0, 8)).isNull();
    assertThat(RequestLine.version(b("HTTP/2.0"), 0, 8).status()).isEqualTo(505);
    assertThat(RequestLine.version(b("HTTP/1.2"), 0, 8).status()).isEqualTo(505);
    assertThat(RequestLine.version(b("http/1.1"), 0, 8).status()).isEqualTo(400);
    assertThat(RequestLine.version(b("HTTP/1.10"), 0, 9).status()).isEqualTo(400);
  }

  @Test
  void methodsOutsideTheKnownOnesAreOther() {
    assertThat(RequestLine.method(b("PURGE"), 5)).isEqualTo(RequestHead.Method.OTHER);
    assertThat(RequestLine.method(b("get"), 3)).isEqualTo(RequestHead.Method.OTHER);
    assertThat(RequestLine.method(b("CONNECT"), 7)).isEqualTo(RequestHead.Method.CONNECT);
  }

  @Test
  void theAuthorityOfAnAbsoluteFormTarget() {
    byte[] t = b("HTTPS://a.example:8443/x?y");
    assertThat(RequestLine.absoluteFormAuthority(t, 0, t.length)).isEqualTo("a.example:8443");
    byte[] bare = b("http://a?q");
    assertThat(RequestLine.absoluteFormAuthority(bare, 0, bare.length)).isEqualTo("a");
    byte[] origin = b("/x");
    assertThat(RequestLine.absoluteFormAuthority(origin, 0, origin.length)).isNull();
    byte[] schemeOnly = b("http://");
    assertThat(RequestLine.absoluteFormAuthority(schemeOnly, 0, schemeOnly.length)).isNull();
  }
}
