package dev.replicapool.dataplane.wire;

import dev.replicapool.controlplane.load.LoadReport;
import dev.replicapool.controlplane.load.LoadReports;
import io.netty.buffer.ByteBuf;

/**
 * One HTTP/1.x response head from a member, parsed once: its status, how its body is framed, and
 * whether the member keeps the connection. Written to the client with the hop-by-hop headers
 * dropped and the proxy's own {@code Connection} decision added; everything else as it came.
 */
public final class ResponseHead {
  public enum Framing {
    NONE,
    LENGTH,
    CHUNKED,
    /** No length: the body ends when the member closes the connection. */
    UNTIL_CLOSE
  }

  private static final byte[] CONTENT_LENGTH = Ascii.bytes("content-length");
  private static final byte[] TRANSFER_ENCODING = Ascii.bytes("transfer-encoding");
  private static final byte[] CONNECTION = Ascii.bytes("connection");
  private static final byte[] KEEP_ALIVE = Ascii.bytes("keep-alive");
  private static final byte[] PROXY_CONNECTION = Ascii.bytes("proxy-connection");
  private static final byte[] UPGRADE = Ascii.bytes("upgrade");
  private static final byte[] LOAD_METRICS = Ascii.bytes(LoadReports.HEADER);
  private static final byte[] LOAD_METRICS_BIN = Ascii.bytes(LoadReports.HEADER_BIN);
  private static final byte[] CHUNKED = Ascii.bytes("chunked");
  private static final byte[] HTTP_SLASH = Ascii.bytes("http/");
  private static final byte[] HTTP11 = Ascii.bytes("HTTP/1.1");
  private static final byte[] CRLF = Ascii.bytes("\r\n");
  private static final byte[] CHUNKED_LINE = Ascii.bytes("transfer-encoding: chunked\r\n");
  private static final byte[] CLOSE_LINE = Ascii.bytes("connection: close\r\n");
  private static final byte[] SET_COOKIE = Ascii.bytes("set-cookie: ");
  private static final byte[] UPGRADE_LINES = Ascii.bytes("connection: upgrade\r\nupgrade: ");

  private byte[] bytes = new byte[512];
  private int length;
  private final HeaderLines lines = new HeaderLines();
  private int status;
  private int lineEnd;
  private Framing framing;
  private long contentLength;
  private boolean chunked;
  private boolean memberCloses;
  private int upgrade = -1;
  private String loadMetrics;
  private String loadMetricsBin;
  private boolean keepLoadReports;

  /**
   * Parses the {@code headLength} bytes at {@code buf}'s reader index without consuming them.
   *
   * @param headRequest whether the request was a HEAD (no body whatever the head says)
   * @return null, or why the head is unusable (the member's answer becomes a 502)
   */
  public String parse(ByteBuf buf, int headLength, boolean headRequest) {
    return parse(buf, headLength, headRequest, false);
  }

  /**
   * As {@link #parse(ByteBuf, int, boolean)}; {@code keepLoadReports}: the member's load report is
   * read and left in the head for the client (else it is read and dropped).
   */
  public String parse(ByteBuf buf, int headLength, boolean headRequest, boolean keepLoadReports) {
    this.keepLoadReports = keepLoadReports;
    if (bytes.length < headLength) {
      bytes = new byte[Math.max(headLength, bytes.length * 2)];
    }
    buf.getBytes(buf.readerIndex(), bytes, 0, headLength);
    length = headLength;
    lines.reset(bytes);
    upgrade = -1;
    contentLength = -1;
    loadMetrics = null;
    loadMetricsBin = null;
    lineEnd = HeadScanner.lineEnd(bytes, 0, length);
    String bad = statusLine();
    if (bad != null) {
      return bad;
    }
    boolean http10 = bytes[7] == '0';
    int headersEnd = length - (length >= 2 && bytes[length - 2] == '\r' ? 2 : 1);
    bad = HeadScanner.headers(bytes, HeadScanner.nextLine(bytes, lineEnd), headersEnd, lines);
    if (bad != null) {
      return bad;
    }
    bad = framingAndConnection(http10);
    if (bad != null) {
      return bad;
    }
    framing = framing(headRequest);
    return null;
  }

  /** {@code HTTP/x.y NNN[ reason]}: sets the status. */
  private String statusLine() {
    if (lineEnd < 12
        || !Ascii.equalsLower(bytes, 0, 5, HTTP_SLASH)
        || bytes[8] != ' '
        || bytes[6] != '.') {
      return "invalid status line";
    }
    long code = Ascii.decimal(bytes, 9, 12);
    if (code < 100 || code > 599 || (lineEnd > 12 && bytes[12] != ' ')) {
      return "invalid status code";
    }
    status = (int) code;
    return null;
  }

  /**
   * Reads the headers that frame the body or concern the connection, dropping the hop-by-hop ones:
   * sets {@code contentLength}, {@code chunked}, {@code memberCloses} and {@code upgrade}.
   */
  private String framingAndConnection(boolean http10) {
    chunked = false;
    boolean keepAlive = !http10;
    for (int i = 0; i < lines.count; i++) {
      if (lines.nameIs(i, CONTENT_LENGTH)) {
        long cl = Ascii.decimal(bytes, lines.valueStart(i), lines.valueEnd(i));
        if (cl < 0 || (contentLength >= 0 && cl != contentLength)) {
          return "invalid content-length";
        }
        contentLength = cl;
      } else if (lines.nameIs(i, TRANSFER_ENCODING)) {
        if (!Ascii.containsLower(bytes, lines.valueStart(i), lines.valueEnd(i), CHUNKED)) {
          return "transfer-encoding without chunked";
        }
        chunked = true;
        lines.drop(i);
      } else if (lines.nameIs(i, CONNECTION)) {
        int tokens = lines.connectionTokens(i);
        if ((tokens & HeaderLines.TOKEN_FRAMING) != 0) {
          return "connection names content-length or transfer-encoding";
        }
        keepAlive = keepAlive(tokens, keepAlive);
        lines.drop(i);
      } else if (lines.nameIs(i, KEEP_ALIVE) || lines.nameIs(i, PROXY_CONNECTION)) {
        lines.drop(i);
      } else if (lines.nameIs(i, UPGRADE)) {
        upgrade = i;
        lines.drop(i);
      } else if (lines.nameIs(i, LOAD_METRICS)) {
        loadMetrics = lines.value(i); // for the balancer, not the client unless the pool says
        if (!keepLoadReports) {
          lines.drop(i);
        }
      } else if (lines.nameIs(i, LOAD_METRICS_BIN)) {
        loadMetricsBin = lines.value(i);
        if (!keepLoadReports) {
          lines.drop(i);
        }
      }
    }
    memberCloses = !keepAlive;
    if (chunked) {
      lines.dropNamed(CONTENT_LENGTH);
      contentLength = -1;
    }
    return null;
  }

  private static boolean keepAlive(int connectionTokens, boolean before) {
    if ((connectionTokens & HeaderLines.TOKEN_CLOSE) != 0) {
      return false;
    }
    return (connectionTokens & HeaderLines.TOKEN_KEEP_ALIVE) != 0 || before;
  }

  private Framing framing(boolean headRequest) {
    if (headRequest || status < 200 || status == 204 || status == 304) {
      return Framing.NONE;
    } else if (chunked) {
      return Framing.CHUNKED;
    } else if (contentLength >= 0) {
      return Framing.LENGTH;
    }
    return Framing.UNTIL_CLOSE;
  }

  /**
   * Writes the head as the client gets it; a chunked body goes on chunked.
   *
   * @param close add {@code Connection: close} (the proxy closes the client connection after it)
   * @param setCookie a {@code Set-Cookie} of the proxy's own, or null
   */
  public void writeDownstream(ByteBuf out, boolean close, String setCookie) {
    out.writeBytes(HTTP11);
    out.writeBytes(bytes, 8, lineEnd - 8);
    out.writeBytes(CRLF);
    lines.writeKept(out);
    if (framing == Framing.CHUNKED) {
      out.writeBytes(CHUNKED_LINE);
    }
    if (status == 101 && upgrade >= 0) {
      out.writeBytes(UPGRADE_LINES);
      lines.writeValue(out, upgrade);
      out.writeBytes(CRLF);
    } else if (close) {
      out.writeBytes(CLOSE_LINE);
    }
    if (setCookie != null) {
      out.writeBytes(SET_COOKIE).writeBytes(Ascii.bytes(setCookie)).writeBytes(CRLF);
    }
    out.writeBytes(CRLF);
  }

  /** The member's ORCA load report in this head, or null (none, or not readable). */
  public LoadReport loadReport() {
    if (loadMetricsBin != null) {
      return LoadReports.bin(loadMetricsBin);
    }
    return loadMetrics == null ? null : LoadReports.parse(loadMetrics);
  }

  public int status() {
    return status;
  }

  public int length() {
    return length;
  }

  public Framing framing() {
    return framing;
  }

  public long contentLength() {
    return contentLength;
  }

  /** Whether the member said it closes the connection after this response. */
  public boolean memberCloses() {
    return memberCloses;
  }

  /** An interim response (1xx other than 101): the final one follows. */
  public boolean interim() {
    return status < 200 && status != 101;
  }

  /** Header lines kept for the client, as name/value strings (for a translation to HTTP/2). */
  public void forEachHeader(java.util.function.BiConsumer<String, String> f) {
    for (int i = 0; i < lines.count; i++) {
      if (!lines.dropped(i)) {
        f.accept(lines.name(i), lines.value(i));
      }
    }
  }
}
