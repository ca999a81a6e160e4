package dev.replicapool.dataplane.wire;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * One HTTP/1.x request head, parsed once from the client's bytes and checked against RFC 9112 (the
 * one place that decides what a malformed request gets), then written to a member with the proxy's
 * changes: hop-by-hop headers dropped, {@code X-Forwarded-*} and {@code Via} added, HTTP/1.1 on the
 * member side. Everything else is copied as it came. Reused per connection: {@link #parse} fills it
 * anew, allocating only strings the routing needs (the Host value).
 *
 * <p>Why not Netty's codec: decoding a head into header objects and encoding it again costs more
 * than the rest of forwarding a small request together; here a head is scanned once. Why one class
 * of this size: the checks of RFC 9112 read the same offsets the writer copies from, and keeping
 * them together keeps "what does a malformed request get" to one place.
 */
public final class RequestHead {
  public enum Framing {
    NONE,
    LENGTH,
    CHUNKED
  }

  private static final byte[] HOST = Ascii.bytes("host");
  private static final byte[] CONTENT_LENGTH = Ascii.bytes("content-length");
  private static final byte[] TRANSFER_ENCODING = Ascii.bytes("transfer-encoding");
  private static final byte[] CONNECTION = Ascii.bytes("connection");
  private static final byte[] UPGRADE = Ascii.bytes("upgrade");
  private static final byte[] EXPECT = Ascii.bytes("expect");
  private static final byte[] VIA = Ascii.bytes("via");
  private static final byte[] XFF = Ascii.bytes("x-forwarded-for");
  private static final byte[] XFP = Ascii.bytes("x-forwarded-proto");
  private static final byte[] XFH = Ascii.bytes("x-forwarded-host");
  private static final byte[][] HOP_BY_HOP =
      new byte[][] {
        Ascii.bytes("keep-alive"),
        Ascii.bytes("proxy-connection"),
        Ascii.bytes("te"),
        Ascii.bytes("trailer"),
        Ascii.bytes("proxy-authenticate"),
        Ascii.bytes("proxy-authorization"),
        Ascii.bytes("http2-settings")
      };
  private static final byte[] CHUNKED = Ascii.bytes("chunked");
  private static final byte[] CONTINUE = Ascii.bytes("100-continue");
  private static final byte[] H2C = Ascii.bytes("h2c");
  private static final byte[] HTTP11 = Ascii.bytes(" HTTP/1.1\r\n");
  private static final byte[] CRLF = Ascii.bytes("\r\n");

  private byte[] bytes = new byte[512];
  private int length;
  private final HeaderLines lines = new HeaderLines();
  private int methodEnd;
  private int targetStart;
  private int targetEnd;
  private Method method;
  private boolean http10;
  private int host = -1;
  private Framing framing;
  private long contentLength;
  private boolean closeAfter;
  private int upgrade = -1;
  private boolean expectContinue;
  private String hostValue;
  private String forwardedFor;

  /** Methods the proxy treats specially (retries, bodies); anything else is OTHER. */
  public enum Method {
    GET(true),
    HEAD(true),
    OPTIONS(true),
    PUT(true),
    DELETE(true),
    TRACE(true),
    POST(false),
    PATCH(false),
    CONNECT(false),
    OTHER(false);

    public final boolean idempotent;
    final byte[] name = Ascii.bytes(name());

    Method(boolean idempotent) {
      this.idempotent = idempotent;
    }
  }

  private static final Method[] KNOWN = {
    Method.GET,
    Method.HEAD,
    Method.OPTIONS,
    Method.PUT,
    Method.DELETE,
    Method.TRACE,
    Method.POST,
    Method.PATCH,
    Method.CONNECT
  };

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
    lines.reset(bytes);
    host = -1;
    upgrade = -1;
    hostValue = null;
    forwardedFor = null;
    closeAfter = false;
    expectContinue = false;
    contentLength = -1;
    framing = Framing.NONE;
    WireError e = requestLine();
    if (e != null) {
      return e;
    }
    int headersStart = HeadScanner.nextLine(bytes, HeadScanner.lineEnd(bytes, 0, length));
    int headersEnd = length - (length >= 2 && bytes[length - 2] == '\r' ? 2 : 1);
    String bad = HeadScanner.headers(bytes, headersStart, headersEnd, lines);
    if (bad != null) {
      return WireError.badRequest(bad);
    }
    return semantics();
  }

  private WireError requestLine() {
    int le = HeadScanner.lineEnd(bytes, 0, length);
    int sp1 = -1;
    for (int i = 0; i < le; i++) {
      if (bytes[i] == ' ') {
        sp1 = i;
        break;
      }
      if (!Ascii.tchar(bytes[i])) {
        return WireError.badRequest("invalid method");
      }
    }
    if (sp1 <= 0) {
      return WireError.badRequest("invalid request line");
    }
    int sp2 = -1;
    for (int i = sp1 + 1; i < le; i++) {
      int c = bytes[i] & 0xff;
      if (c == ' ') {
        sp2 = i;
        break;
      }
      if (c < 0x20 || c == 0x7f) {
        return WireError.badRequest("invalid character in the request target");
      }
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
    int v = sp2 + 1;
    if (le - v != 8
        || bytes[v] != 'H'
        || bytes[v + 1] != 'T'
        || bytes[v + 2] != 'T'
        || bytes[v + 3] != 'P'
        || bytes[v + 4] != '/'
        || bytes[v + 6] != '.'
        || !digit(bytes[v + 5])
        || !digit(bytes[v + 7])) {
      return WireError.badRequest("invalid HTTP version");
    }
    if (bytes[v + 5] != '1' || (bytes[v + 7] != '1' && bytes[v + 7] != '0')) {
      return new WireError(505, "HTTP version not supported");
    }
    http10 = bytes[v + 7] == '0';
    method = Method.OTHER;
    for (Method m : KNOWN) {
      if (m.name.length == sp1 && Arrays.equals(bytes, 0, sp1, m.name, 0, sp1)) {
        method = m;
        break;
      }
    }
    return null;
  }

  private static boolean digit(byte b) {
    return b >= '0' && b <= '9';
  }

  private WireError semantics() {
    boolean transferEncoding = false;
    boolean connectionUpgrade = false;
    int hosts = 0;
    for (int i = 0; i < lines.count; i++) {
      int ns = lines.nameStart(i);
      int len = lines.nameEnd(i) - ns;
      byte first = Ascii.lower(bytes[ns]);
      if (len == 4 && lines.nameIs(i, HOST)) {
        hosts++;
        host = i;
      } else if (len == 14 && first == 'c' && lines.nameIs(i, CONTENT_LENGTH)) {
        long cl = Ascii.decimal(bytes, lines.valueStart(i), lines.valueEnd(i));
        if (cl < 0 || (contentLength >= 0 && cl != contentLength)) {
          return WireError.badRequest("invalid content-length");
        }
        if (contentLength >= 0) {
          lines.drop(i); // the same value twice: one is enough
        }
        contentLength = cl;
      } else if (len == 17 && first == 't' && lines.nameIs(i, TRANSFER_ENCODING)) {
        WireError e = transferEncoding(i, transferEncoding);
        if (e != null) {
          return e;
        }
        transferEncoding = true;
        lines.drop(i);
      } else if (len == 10 && first == 'c' && lines.nameIs(i, CONNECTION)) {
        int tokens = lines.connectionTokens(i);
        closeAfter |= (tokens & HeaderLines.TOKEN_CLOSE) != 0;
        connectionUpgrade |= (tokens & HeaderLines.TOKEN_UPGRADE) != 0;
        lines.drop(i);
      } else if (len == 7 && first == 'u' && lines.nameIs(i, UPGRADE)) {
        upgrade = i;
        lines.drop(i);
      } else if (len == 6 && first == 'e' && lines.nameIs(i, EXPECT)) {
        if (Ascii.equalsLower(bytes, lines.valueStart(i), lines.valueEnd(i), CONTINUE)) {
          expectContinue = true;
          lines.drop(i); // the proxy answers it; the member gets the body without Expect
        }
      } else if (first == 'x' && len >= 15 && len <= 17) {
        if (len == 15 && lines.nameIs(i, XFF)) {
          String v = lines.value(i);
          forwardedFor = forwardedFor == null ? v : forwardedFor + ", " + v;
          lines.drop(i); // written anew with the client's address appended
        } else if (lines.nameIs(i, XFP) || lines.nameIs(i, XFH)) {
          lines.drop(i); // set anew by the proxy
        }
      } else {
        for (byte[] h : HOP_BY_HOP) {
          if (len == h.length && lines.nameIs(i, h)) {
            lines.drop(i);
            break;
          }
        }
      }
    }
    if (method == Method.CONNECT) {
      return new WireError(405, "CONNECT is not supported: this is a reverse proxy");
    }
    if (transferEncoding) {
      if (contentLength >= 0) {
        // Both: the length cannot be trusted (RFC 9112 6.1); read as chunked and close after.
        lines.dropNamed(CONTENT_LENGTH);
        closeAfter = true;
      }
      framing = Framing.CHUNKED;
      contentLength = -1;
    } else if (contentLength >= 0) {
      framing = Framing.LENGTH;
    }
    if (hosts > 1) {
      return WireError.badRequest("more than one Host header");
    }
    if (hosts == 0 && !http10) {
      return WireError.badRequest("missing Host header");
    }
    if (host >= 0) {
      if (!validHost(bytes, lines.valueStart(host), lines.valueEnd(host))) {
        return WireError.badRequest("invalid Host header");
      }
      hostValue = lines.value(host);
      String target = absoluteFormAuthority();
      if (target != null && !target.equalsIgnoreCase(hostValue)) {
        return WireError.badRequest("request target and Host name different hosts");
      }
    }
    if (upgrade >= 0
        && (!connectionUpgrade
            || Ascii.containsLower(
                bytes, lines.valueStart(upgrade), lines.valueEnd(upgrade), H2C))) {
      upgrade = -1; // not an upgrade this proxy passes on (h2c: served over HTTP/1.1 instead)
    }
    if (http10) {
      closeAfter = true; // HTTP/1.0 clients get one response per connection
    }
    return null;
  }

  private WireError transferEncoding(int i, boolean seenBefore) {
    int vs = lines.valueStart(i);
    int ve = lines.valueEnd(i);
    if (!seenBefore && Ascii.equalsLower(bytes, vs, ve, CHUNKED)) {
      return null;
    }
    // Anything but a single "chunked": 400 when chunked is among the codings (the length cannot
    // be determined), 501 for codings the proxy does not know.
    boolean chunkedSomewhere = seenBefore || hasToken(vs, ve, CHUNKED);
    return chunkedSomewhere
        ? WireError.badRequest("transfer-encoding must be chunked alone")
        : new WireError(501, "transfer-encoding not supported");
  }

  /**
   * Whether the comma-separated list in {@code bytes[from, to)} has {@code token}, ignoring case.
   */
  private boolean hasToken(int from, int to, byte[] token) {
    int[] t = new int[2];
    for (int p = from; (p = Ascii.nextListElement(bytes, p, to, t)) >= 0; ) {
      if (Ascii.equalsLower(bytes, t[0], t[1], token)) {
        return true;
      }
    }
    return false;
  }

  /** host [":" port], host a reg-name, IPv4 or [IPv6] (RFC 9110 7.2, RFC 3986 3.2.2). */
  static boolean validHost(byte[] b, int from, int to) {
    if (to <= from) {
      return false;
    }
    int p = from;
    if (b[p] == '[') {
      while (p < to && b[p] != ']') {
        byte c = b[p];
        if (!(c == '[' || c == ':' || c == '.' || Character.digit(c, 16) >= 0)) {
          return false;
        }
        p++;
      }
      if (p >= to) {
        return false;
      }
      p++;
    } else {
      while (p < to && b[p] != ':') {
        byte c = b[p];
        boolean ok =
            (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || "-._~%!$&'()*+,;=".indexOf(c) >= 0;
        if (!ok) {
          return false;
        }
        p++;
      }
      if (p == from) {
        return false;
      }
    }
    if (p == to) {
      return true;
    }
    if (b[p] != ':') {
      return false;
    }
    long port = Ascii.decimal(b, p + 1, to);
    return p + 1 == to || (port >= 0 && port <= 65535 && to - p - 1 <= 5);
  }

  /** The authority of an absolute-form target ({@code http://a:1/x}), else null. */
  private String absoluteFormAuthority() {
    int start;
    if (targetEnd - targetStart > 7 && prefix("http://")) {
      start = targetStart + 7;
    } else if (targetEnd - targetStart > 8 && prefix("https://")) {
      start = targetStart + 8;
    } else {
      return null;
    }
    int end = start;
    while (end < targetEnd && bytes[end] != '/' && bytes[end] != '?' && bytes[end] != '#') {
      end++;
    }
    return Ascii.string(bytes, start, end);
  }

  private boolean prefix(String p) {
    for (int i = 0; i < p.length(); i++) {
      if (Ascii.lower(bytes[targetStart + i]) != p.charAt(i)) {
        return false;
      }
    }
    return true;
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
    out.writeBytes(bytes, 0, targetEnd);
    out.writeBytes(HTTP11);
    String xff = this.forwardedFor;
    lines.writeKept(out);
    if (host < 0 && defaultHost != null) {
      out.writeBytes(HOST_LINE).writeBytes(Ascii.bytes(defaultHost)).writeBytes(CRLF);
    }
    if (framing == Framing.CHUNKED) {
      out.writeBytes(CHUNKED_LINE);
    }
    if (upgrade >= 0) {
      out.writeBytes(UPGRADE_LINES);
      out.writeBytes(
          bytes, lines.valueStart(upgrade), lines.valueEnd(upgrade) - lines.valueStart(upgrade));
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
      out.writeBytes(bytes, lines.valueStart(host), lines.valueEnd(host) - lines.valueStart(host));
      out.writeBytes(CRLF);
    }
    out.writeBytes(via);
    out.writeBytes(CRLF_CRLF);
  }

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
    for (int i = 0; i < lines.count; i++) {
      if (lines.nameEnd(i) - lines.nameStart(i) == 3
          && lines.nameIs(i, VIA)
          && Ascii.containsLower(bytes, lines.valueStart(i), lines.valueEnd(i), pseudonym)) {
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
    return hostValue;
  }

  public Framing framing() {
    return framing;
  }

  /** The declared body length, or -1. */
  public long contentLength() {
    return contentLength;
  }

  public boolean bodyless() {
    return framing == Framing.NONE || (framing == Framing.LENGTH && contentLength == 0);
  }

  /** Whether the connection closes after this request's response (RFC 9112 9.3, 9.6, 6.1). */
  public boolean closeAfter() {
    return closeAfter;
  }

  /** Whether this is an upgrade (WebSocket and the like) to pass on to the member. */
  public boolean upgrade() {
    return upgrade >= 0;
  }

  public boolean expectContinue() {
    return expectContinue;
  }

  /** The value of the first header named {@code lower} (lower case), or null. */
  public String header(String lower) {
    byte[] name = Ascii.bytes(lower);
    for (int i = 0; i < lines.count; i++) {
      if (lines.nameEnd(i) - lines.nameStart(i) == name.length && lines.nameIs(i, name)) {
        return lines.value(i);
      }
    }
    return null;
  }

  /** Header lines as name/value strings, for translating the request to HTTP/2. */
  public void forEachHeader(java.util.function.BiConsumer<String, String> f) {
    for (int i = 0; i < lines.count; i++) {
      if (!lines.dropped(i)) {
        f.accept(lines.name(i), lines.value(i));
      }
    }
  }
}
