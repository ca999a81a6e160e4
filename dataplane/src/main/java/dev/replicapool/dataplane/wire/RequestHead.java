package dev.replicapool.dataplane.wire;

import io.netty.buffer.ByteBuf;

/**
 * One HTTP/1.x request head, parsed once from the client's bytes and checked against RFC 9112 (the
 * one place that decides what a malformed request gets), then written to a member with the proxy's
 * changes: hop-by-hop headers dropped, {@code X-Forwarded-*} and {@code Via} added, HTTP/1.1 on the
 * member side. Everything else is copied as it came. Reused per connection: {@link #parse} fills it
 * anew, allocating only strings the routing needs (the Host value).
 *
 * <p>What a malformed request gets is decided in this package: the request line's pieces in {@link
 * RequestLine}, the header lines' syntax in {@link HeadScanner}, their meaning (framing, Host,
 * Connection, Upgrade, Expect) in {@link RequestHeaders}, the Host value's syntax in {@link
 * HostSyntax}. Why not Netty's codec: decoding a head into header objects and encoding it again
 * costs more than the rest of forwarding a small request together; here a head is scanned once.
 */
public final class RequestHead {
  public enum Framing {
    NONE,
    LENGTH,
    CHUNKED
  }

  private static final byte[] VIA = Ascii.bytes("via");
  private static final byte[] HTTP11 = Ascii.bytes(" HTTP/1.1\r\n");
  private static final byte[] CRLF = Ascii.bytes("\r\n");

  private byte[] bytes = new byte[512];
  private int length;
  private final RequestHeaders headers = new RequestHeaders();
  private int methodEnd;
  private int targetStart;
  private int targetEnd;
  private Method method;
  private boolean http10;

  /** Methods the proxy treats specially (retries, bodies); anything else is OTHER. */
  public enum Method {
    GET,
    HEAD,
    OPTIONS,
    PUT,
    DELETE,
    TRACE,
    POST,
    PATCH,
    CONNECT,
    OTHER;

    final byte[] name = Ascii.bytes(name());
  }

  /**
   * Parses the {@code headLength} bytes at {@code buf}'s reader index (found by {@link
   * HeadScanner#headLength}) without consuming them.
   *
   * @return null, or the refusal for a request that must not be forwarded
   */
  public WireError parse(ByteBuf buf, int headLength) {
    if (bytes.length < headLength) {
      bytes = new byte[Math.max(headLength, bytes.length * 2)];
    }
    buf.getBytes(buf.readerIndex(), bytes, 0, headLength);
    length = headLength;
    headers.reset(bytes);
    WireError e = requestLine();
    if (e != null) {
      return e;
    }
    int headersStart = HeadScanner.nextLine(bytes, HeadScanner.lineEnd(bytes, 0, length));
    int headersEnd = length - (length >= 2 && bytes[length - 2] == '\r' ? 2 : 1);
    String bad = HeadScanner.headers(bytes, headersStart, headersEnd, headers);
    if (bad != null) {
      return WireError.badRequest(bad);
    }
    e = headers.read();
    if (e != null) {
      return e;
    }
    if (method == Method.CONNECT) {
      return new WireError(405, "CONNECT is not supported: this is a reverse proxy");
    }
    return headers.conclude(http10, targetStart, targetEnd);
  }

  private WireError requestLine() {
    int le = HeadScanner.lineEnd(bytes, 0, length);
    int sp1 = RequestLine.methodEnd(bytes, le);
    if (sp1 == RequestLine.INVALID) {
      return WireError.badRequest("invalid method");
    }
    if (sp1 <= 0) {
      return WireError.badRequest("invalid request line");
    }
    int sp2 = RequestLine.targetEnd(bytes, sp1 + 1, le);
    if (sp2 == RequestLine.INVALID) {
      return WireError.badRequest("invalid character in the request target");
    }
    if (sp2 < 0) {
      return WireError.badRequest("invalid request line (HTTP/0.9 is not supported)");
    }
    if (sp2 == sp1 + 1) {
      return WireError.badRequest("invalid request line");
    }
    methodEnd = sp1;
    targetStart = sp1 + 1;
    targetEnd = sp2;
    WireError e = RequestLine.version(bytes, sp2 + 1, le);
    if (e != null) {
      return e;
    }
    http10 = bytes[sp2 + 8] == '0';
    method = RequestLine.method(bytes, sp1);
    return null;
  }

  /**
   * Writes the head as the member gets it: HTTP/1.1, the kept headers, then the proxy's own.
   *
   * @param forwardedFor the client's address for X-Forwarded-For
   * @param proto "http" or "https" for X-Forwarded-Proto
   * @param via the complete {@code via: ...\r\n} line of this proxy
   * @param defaultHost Host for an HTTP/1.0 request without one
   */
  public void writeUpstream(
      ByteBuf out, String forwardedFor, byte[] proto, byte[] via, String defaultHost) {
    writeUpstream(out, forwardedFor, proto, via, defaultHost, null);
  }

  /**
   * Writes the head as the member gets it, with {@code traceparent} in place of the client's (the
   * data plane takes part in the trace); returns where its value starts in {@code out}, so that
   * each try can put its own span there (the value's length never changes), or -1 without one.
   */
  public int writeUpstream(
      ByteBuf out,
      String forwardedFor,
      byte[] proto,
      byte[] via,
      String defaultHost,
      String traceparent) {
    if (traceparent != null) {
      headers.dropNamed(TRACEPARENT);
    }
    out.writeBytes(bytes, 0, targetEnd);
    out.writeBytes(HTTP11);
    String xff = headers.forwardedFor();
    int host = headers.hostLine();
    int upgrade = headers.upgradeLine();
    headers.writeKept(out);
    if (host < 0 && defaultHost != null) {
      out.writeBytes(HOST_LINE).writeBytes(Ascii.bytes(defaultHost)).writeBytes(CRLF);
    }
    if (headers.framing() == Framing.CHUNKED) {
      out.writeBytes(CHUNKED_LINE);
    }
    if (upgrade >= 0) {
      out.writeBytes(UPGRADE_LINES);
      headers.writeValue(out, upgrade);
      out.writeBytes(CRLF);
    }
    if (forwardedFor != null) {
      out.writeBytes(XFF_LINE);
      if (xff != null && !xff.isBlank()) {
        out.writeBytes(Ascii.bytes(xff)).writeBytes(COMMA_SP);
      }
      out.writeBytes(Ascii.bytes(forwardedFor)).writeBytes(CRLF);
    }
    out.writeBytes(XFP_LINE).writeBytes(proto).writeBytes(CRLF);
    if (host >= 0) {
      out.writeBytes(XFH_LINE);
      headers.writeValue(out, host);
      out.writeBytes(CRLF);
    }
    int traceparentAt = -1;
    if (traceparent != null) {
      out.writeBytes(TRACEPARENT_LINE);
      traceparentAt = out.writerIndex();
      out.writeCharSequence(traceparent, java.nio.charset.StandardCharsets.US_ASCII);
      out.writeBytes(CRLF);
    }
    out.writeBytes(via);
    out.writeBytes(CRLF_CRLF);
    return traceparentAt;
  }

  private static final byte[] TRACEPARENT = Ascii.bytes("traceparent");
  private static final byte[] TRACEPARENT_LINE = Ascii.bytes("traceparent: ");

  private static final byte[] CRLF_CRLF = Ascii.bytes("\r\n\r\n");

  private static final byte[] HOST_LINE = Ascii.bytes("host: ");
  private static final byte[] CHUNKED_LINE = Ascii.bytes("transfer-encoding: chunked\r\n");
  private static final byte[] UPGRADE_LINES = Ascii.bytes("connection: upgrade\r\nupgrade: ");
  private static final byte[] XFF_LINE = Ascii.bytes("x-forwarded-for: ");
  private static final byte[] XFP_LINE = Ascii.bytes("x-forwarded-proto: ");
  private static final byte[] XFH_LINE = Ascii.bytes("x-forwarded-host: ");
  private static final byte[] COMMA_SP = Ascii.bytes(", ");

  /** Whether one of the request's Via headers names {@code pseudonym}: the request looped back. */
  public boolean viaContains(byte[] pseudonym) {
    for (int i = 0; i < headers.count; i++) {
      if (headers.nameEnd(i) - headers.nameStart(i) == 3
          && headers.nameIs(i, VIA)
          && Ascii.containsLower(bytes, headers.valueStart(i), headers.valueEnd(i), pseudonym)) {
        return true;
      }
    }
    return false;
  }

  public int length() {
    return length;
  }

  public Method method() {
    return method;
  }

  /** The method as sent (for methods outside {@link Method}). */
  public String methodName() {
    return Ascii.string(bytes, 0, methodEnd);
  }

  public String target() {
    return Ascii.string(bytes, targetStart, targetEnd);
  }

  public boolean http10() {
    return http10;
  }

  /** The Host header as sent, or null. */
  public String host() {
    return headers.hostValue();
  }

  public Framing framing() {
    return headers.framing();
  }

  /** The declared body length, or -1. */
  public long contentLength() {
    return headers.contentLength();
  }

  public boolean bodyless() {
    Framing framing = headers.framing();
    return framing == Framing.NONE || (framing == Framing.LENGTH && headers.contentLength() == 0);
  }

  /** Whether the connection closes after this request's response (RFC 9112 9.3, 9.6, 6.1). */
  public boolean closeAfter() {
    return headers.closeAfter();
  }

  /** Whether this is an upgrade (WebSocket and the like) to pass on to the member. */
  public boolean upgrade() {
    return headers.upgradeLine() >= 0;
  }

  public boolean expectContinue() {
    return headers.expectContinue();
  }

  /** The value of the first header named {@code lower} (lower case), or null. */
  public String header(String lower) {
    byte[] name = Ascii.bytes(lower);
    for (int i = 0; i < headers.count; i++) {
      if (headers.nameEnd(i) - headers.nameStart(i) == name.length && headers.nameIs(i, name)) {
        return headers.value(i);
      }
    }
    return null;
  }

  /** Header lines as name/value strings, for translating the request to HTTP/2. */
  public void forEachHeader(java.util.function.BiConsumer<String, String> f) {
    for (int i = 0; i < headers.count; i++) {
      if (!headers.dropped(i)) {
        f.accept(headers.name(i), headers.value(i));
      }
    }
  }
}
