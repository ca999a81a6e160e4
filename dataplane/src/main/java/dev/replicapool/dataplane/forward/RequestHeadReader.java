package dev.replicapool.dataplane.forward;

import dev.replicapool.dataplane.proxy.ProxySettings;
import dev.replicapool.dataplane.wire.HeadScanner;
import dev.replicapool.dataplane.wire.RequestHead;
import dev.replicapool.dataplane.wire.WireError;
import io.netty.buffer.ByteBuf;

/**
 * Reads the next request head of a client connection from what it has buffered: skips the empty
 * lines before it, bounds its request line and header block, parses it into the connection's {@link
 * RequestHead} and says what a head that fails gets; with h2c on, also tells the HTTP/2 preface
 * from an HTTP/1.x request. {@link Http1Connection} calls it; no I/O of its own.
 */
final class RequestHeadReader {
  /** More bytes are needed. */
  static final int INCOMPLETE = 0;

  /** The head is refused: the client gets {@link #error()}. */
  static final int REFUSED = -1;

  /** Neither the HTTP/2 preface nor HTTP/1.x: the connection ends without an answer. */
  static final int NOT_HTTP = -2;

  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes();

  private final ProxySettings settings;
  private final RequestHead head;
  private final boolean h2cPreface;
  private boolean first = true;
  private WireError error;

  RequestHeadReader(ProxySettings settings, RequestHead head, boolean h2cPreface) {
    this.settings = settings;
    this.head = head;
    this.h2cPreface = h2cPreface;
  }

  /**
   * Parses the head at the start of {@code in} and skips it; returns its length, or {@link
   * #INCOMPLETE}, {@link #REFUSED} or {@link #NOT_HTTP}.
   */
  int read(ByteBuf in) {
    skipEmptyLines(in);
    if (!in.isReadable()) {
      return INCOMPLETE;
    }
    int len = HeadScanner.headLength(in, settings.maxInitialLineLength(), settings.maxHeaderSize());
    if (len == HeadScanner.INCOMPLETE) {
      return INCOMPLETE;
    }
    if (len == HeadScanner.LINE_TOO_LONG) {
      return refuse(414, "request line exceeds " + settings.maxInitialLineLength() + " bytes");
    }
    if (len == HeadScanner.HEADERS_TOO_LARGE) {
      return refuse(431, "request header exceeds " + settings.maxHeaderSize() + " bytes");
    }
    WireError bad = head.parse(in, len);
    boolean wasFirst = first;
    first = false;
    if (bad != null && wasFirst && h2cPreface && !http1RequestLine(in) && threeParts(in)) {
      // Three words that are neither the HTTP/2 preface nor an HTTP/1.x request line: an invalid
      // connection preface, which ends the connection without an answer (RFC 9113 3.4). Shorter
      // lines (an HTTP/0.9 request, say) still get their 400.
      return NOT_HTTP;
    }
    if (bad != null) {
      error = bad;
      return REFUSED;
    }
    in.skipBytes(len);
    if (head.framing() == RequestHead.Framing.LENGTH
        && head.contentLength() > settings.maxBodyBytes()) {
      return refuse(413, "request body exceeds " + settings.maxBodyBytes() + " bytes");
    }
    return len;
  }

  /** What a refused head gets. */
  WireError error() {
    return error;
  }

  private int refuse(int status, String message) {
    error = new WireError(status, message);
    return REFUSED;
  }

  private static void skipEmptyLines(ByteBuf in) {
    int skip = 0;
    while (skip < in.readableBytes()) {
      byte b = in.getByte(in.readerIndex() + skip);
      if (b != '\r' && b != '\n') {
        break;
      }
      skip++; // empty lines before a request line are ignored (RFC 9112 2.2)
    }
    in.skipBytes(skip);
  }

  /** 1 when {@code in} opens with the HTTP/2 preface, -1 when it does not, 0 while unsure. */
  static int preface(ByteBuf in) {
    int n = Math.min(in.readableBytes(), PREFACE.length);
    for (int i = 0; i < n; i++) {
      if (in.getByte(in.readerIndex() + i) != PREFACE[i]) {
        return -1;
      }
    }
    return n < PREFACE.length ? 0 : 1;
  }

  /** Does the first line of what is buffered end like an HTTP/1.x request line, " HTTP/d.d"? */
  private static boolean http1RequestLine(ByteBuf buf) {
    int eol = buf.indexOf(buf.readerIndex(), buf.writerIndex(), (byte) '\n');
    int end = eol > buf.readerIndex() && buf.getByte(eol - 1) == '\r' ? eol - 1 : eol;
    int v = end - 8;
    if (eol < 0 || v <= buf.readerIndex() || buf.getByte(v - 1) != ' ') {
      return false;
    }
    for (int i = 0; i < 5; i++) {
      if (buf.getByte(v + i) != "HTTP/".charAt(i)) {
        return false;
      }
    }
    return buf.getByte(v + 6) == '.';
  }

  /** Whether the first buffered line has at least two spaces, as a request line has. */
  private static boolean threeParts(ByteBuf buf) {
    int eol = buf.indexOf(buf.readerIndex(), buf.writerIndex(), (byte) '\n');
    int spaces = 0;
    for (int i = buf.readerIndex(); i < (eol < 0 ? buf.writerIndex() : eol); i++) {
      if (buf.getByte(i) == ' ') {
        spaces++;
      }
    }
    return spaces >= 2;
  }
}
