package dev.replicapool.dataplane.wire;

/**
 * The header lines of one request head and what RFC 9112 and 9110 make of them: the body's framing
 * (Content-Length, Transfer-Encoding), the Host, whether the connection closes after the response
 * (Connection, HTTP/1.0), an upgrade to pass on, {@code Expect: 100-continue}, and which lines the
 * member does not get as they came (hop-by-hop, {@code X-Forwarded-*}). Read once per head by
 * {@link RequestHead#parse}; a subclass of the lines so that a head costs no further object.
 */
final class RequestHeaders extends HeaderLines {
  private static final byte[] HOST = Ascii.bytes("host");
  private static final byte[] CONTENT_LENGTH = Ascii.bytes("content-length");
  private static final byte[] TRANSFER_ENCODING = Ascii.bytes("transfer-encoding");
  private static final byte[] CONNECTION = Ascii.bytes("connection");
  private static final byte[] UPGRADE = Ascii.bytes("upgrade");
  private static final byte[] EXPECT = Ascii.bytes("expect");
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

  private int host = -1;
  private int hosts;
  private RequestHead.Framing framing;
  private long contentLength;
  private boolean transferEncoding;
  private boolean closeAfter;
  private boolean connectionUpgrade;
  private int upgrade = -1;
  private boolean expectContinue;
  private String hostValue;

  /**
   * The Host of the connection's last request that had one: the next request most often names the
   * same, and is then given the same string instead of a new one.
   */
  private String lastHost;

  private String forwardedFor;

  @Override
  void reset(byte[] bytes) {
    super.reset(bytes);
    host = -1;
    hosts = 0;
    upgrade = -1;
    hostValue = null;
    forwardedFor = null;
    closeAfter = false;
    connectionUpgrade = false;
    expectContinue = false;
    transferEncoding = false;
    contentLength = -1;
    framing = RequestHead.Framing.NONE;
  }

  /**
   * Reads each line that means something to the proxy, dropping those the member gets otherwise.
   *
   * @return null, or the refusal of a malformed framing header
   */
  WireError read() {
    for (int i = 0; i < count; i++) {
      WireError e = line(i);
      if (e != null) {
        return e;
      }
    }
    return null;
  }

  // Name lengths and first letters first: most lines are none of these.
  private WireError line(int i) {
    int ns = nameStart(i);
    int len = nameEnd(i) - ns;
    byte first = Ascii.lower(bytes[ns]);
    if (len == 4 && nameIs(i, HOST)) {
      hosts++;
      host = i;
    } else if (len == 14 && first == 'c' && nameIs(i, CONTENT_LENGTH)) {
      return contentLength(i);
    } else if (len == 17 && first == 't' && nameIs(i, TRANSFER_ENCODING)) {
      return transferEncoding(i);
    } else if (len == 10 && first == 'c' && nameIs(i, CONNECTION)) {
      int tokens = connectionTokens(i);
      if ((tokens & TOKEN_FRAMING) != 0) {
        return WireError.badRequest(
            "connection must not name content-length, transfer-encoding or host");
      }
      closeAfter |= (tokens & TOKEN_CLOSE) != 0;
      connectionUpgrade |= (tokens & TOKEN_UPGRADE) != 0;
      drop(i);
    } else if (len == 7 && first == 'u' && nameIs(i, UPGRADE)) {
      upgrade = i;
      drop(i);
    } else if (len == 6 && first == 'e' && nameIs(i, EXPECT)) {
      if (Ascii.equalsLower(bytes, valueStart(i), valueEnd(i), CONTINUE)) {
        expectContinue = true;
        drop(i); // the proxy answers it; the member gets the body without Expect
      }
    } else if (first == 'x' && len >= 15 && len <= 17) {
      forwarded(i, len);
    } else {
      hopByHop(i, len);
    }
    return null;
  }

  private WireError contentLength(int i) {
    long cl = Ascii.decimal(bytes, valueStart(i), valueEnd(i));
    if (cl < 0 || (contentLength >= 0 && cl != contentLength)) {
      return WireError.badRequest("invalid content-length");
    }
    if (contentLength >= 0) {
      drop(i); // the same value twice: one is enough
    }
    contentLength = cl;
    return null;
  }

  private WireError transferEncoding(int i) {
    int vs = valueStart(i);
    int ve = valueEnd(i);
    if (transferEncoding || !Ascii.equalsLower(bytes, vs, ve, CHUNKED)) {
      // Anything but a single "chunked": 400 when chunked is among the codings (the length
      // cannot be determined), 501 for codings the proxy does not know.
      boolean chunkedSomewhere = transferEncoding || hasToken(vs, ve, CHUNKED);
      return chunkedSomewhere
          ? WireError.badRequest("transfer-encoding must be chunked alone")
          : new WireError(501, "transfer-encoding not supported");
    }
    transferEncoding = true;
    drop(i);
    return null;
  }

  /** Whether the comma-separated list in {@code bytes[from, to)} has {@code token}, any case. */
  private boolean hasToken(int from, int to, byte[] token) {
    int[] t = new int[2];
    for (int p = from; (p = Ascii.nextListElement(bytes, p, to, t)) >= 0; ) {
      if (Ascii.equalsLower(bytes, t[0], t[1], token)) {
        return true;
      }
    }
    return false;
  }

  private void forwarded(int i, int len) {
    if (len == 15 && nameIs(i, XFF)) {
      String v = value(i);
      forwardedFor = forwardedFor == null ? v : forwardedFor + ", " + v;
      drop(i); // written anew with the client's address appended
    } else if (nameIs(i, XFP) || nameIs(i, XFH)) {
      drop(i); // set anew by the proxy
    }
  }

  private void hopByHop(int i, int len) {
    for (byte[] h : HOP_BY_HOP) {
      if (len == h.length && nameIs(i, h)) {
        drop(i);
        return;
      }
    }
  }

  /**
   * What the lines read mean together: the framing, the Host (one, valid, the same as an
   * absolute-form target's), the upgrade and whether the connection closes after.
   *
   * @param targetStart the request target's offsets, for an absolute-form authority
   * @return null, or the refusal
   */
  WireError conclude(boolean http10, int targetStart, int targetEnd) {
    if (transferEncoding) {
      if (contentLength >= 0) {
        // Both: the length cannot be trusted (RFC 9112 6.1); read as chunked and close after.
        dropNamed(CONTENT_LENGTH);
        closeAfter = true;
      }
      framing = RequestHead.Framing.CHUNKED;
      contentLength = -1;
    } else if (contentLength >= 0) {
      framing = RequestHead.Framing.LENGTH;
    }
    WireError e = host(http10, targetStart, targetEnd);
    if (e != null) {
      return e;
    }
    if (upgrade >= 0
        && (!connectionUpgrade
            || Ascii.containsLower(bytes, valueStart(upgrade), valueEnd(upgrade), H2C))) {
      upgrade = -1; // not an upgrade this proxy passes on (h2c: served over HTTP/1.1 instead)
    }
    if (http10) {
      closeAfter = true; // HTTP/1.0 clients get one response per connection
    }
    return null;
  }

  private WireError host(boolean http10, int targetStart, int targetEnd) {
    if (hosts > 1) {
      return WireError.badRequest("more than one Host header");
    }
    if (hosts == 0 && !http10) {
      return WireError.badRequest("missing Host header");
    }
    if (host >= 0) {
      if (!HostSyntax.valid(bytes, valueStart(host), valueEnd(host))) {
        return WireError.badRequest("invalid Host header");
      }
      hostValue = lastHost != null && valueIs(host, lastHost) ? lastHost : value(host);
      lastHost = hostValue;
      String target = RequestLine.absoluteFormAuthority(bytes, targetStart, targetEnd);
      if (target != null && !target.equalsIgnoreCase(hostValue)) {
        return WireError.badRequest("request target and Host name different hosts");
      }
    }
    return null;
  }

  /** The Host line, or -1. */
  int hostLine() {
    return host;
  }

  /** The Host value as sent, or null. */
  String hostValue() {
    return hostValue;
  }

  /** The Upgrade line to pass on, or -1. */
  int upgradeLine() {
    return upgrade;
  }

  RequestHead.Framing framing() {
    return framing;
  }

  long contentLength() {
    return contentLength;
  }

  boolean closeAfter() {
    return closeAfter;
  }

  boolean expectContinue() {
    return expectContinue;
  }

  /** The client's X-Forwarded-For values joined, or null. */
  String forwardedFor() {
    return forwardedFor;
  }
}
