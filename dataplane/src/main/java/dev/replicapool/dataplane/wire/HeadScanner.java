package dev.replicapool.dataplane.wire;

import io.netty.buffer.ByteBuf;

/**
 * Finds where an HTTP/1 head ends in received bytes, within the size limits, and splits it into
 * header lines with the checks RFC 9112 5 asks for. Shared by request and response heads.
 */
public final class HeadScanner {
  private HeadScanner() {}

  /** The head is not complete yet. */
  public static final int INCOMPLETE = 0;

  /** The first line is longer than allowed. */
  public static final int LINE_TOO_LONG = -1;

  /** The header lines are larger than allowed. */
  public static final int HEADERS_TOO_LARGE = -2;

  /**
   * Length of the head at {@code buf}'s reader index, empty line included, or one of the constants
   * above. Bytes before the first line that are CR or LF must have been skipped by the caller.
   */
  public static int headLength(ByteBuf buf, int maxLine, int maxHeaders) {
    int start = buf.readerIndex();
    int end = buf.writerIndex();
    int lineLimit = (int) Math.min(end, (long) start + maxLine + 2);
    int lf = buf.indexOf(start, lineLimit, (byte) '\n');
    if (lf < 0) {
      return end - start > maxLine + 1 ? LINE_TOO_LONG : INCOMPLETE;
    }
    int lineLength = lf - start - (lf > start && buf.getByte(lf - 1) == '\r' ? 1 : 0);
    if (lineLength > maxLine) {
      return LINE_TOO_LONG;
    }
    int headEnd = headersEnd(buf, lf + 1, end, maxHeaders);
    return headEnd > 0 ? headEnd - start : headEnd;
  }

  /**
   * Where the header lines starting at {@code headersStart} end, just after the empty line, or
   * {@link #INCOMPLETE} or {@link #HEADERS_TOO_LARGE}.
   */
  private static int headersEnd(ByteBuf buf, int headersStart, int end, int maxHeaders) {
    long headerLimit = (long) headersStart + maxHeaders + 2;
    int p = headersStart;
    while (true) {
      if (p >= end) {
        return end - headersStart > maxHeaders ? HEADERS_TOO_LARGE : INCOMPLETE;
      }
      byte b = buf.getByte(p);
      if (b == '\n') {
        return p + 1;
      }
      if (b == '\r') {
        if (p + 1 >= end) {
          return INCOMPLETE;
        }
        if (buf.getByte(p + 1) == '\n') {
          return p + 2;
        }
      }
      int next = buf.indexOf(p, (int) Math.min(end, headerLimit), (byte) '\n');
      if (next < 0) {
        return end >= headerLimit ? HEADERS_TOO_LARGE : INCOMPLETE;
      }
      p = next + 1;
      if (p - headersStart > maxHeaders) {
        return HEADERS_TOO_LARGE;
      }
    }
  }

  /** Index of the line terminator (CR of CRLF, or a bare LF) of the line starting at {@code p}. */
  static int lineEnd(byte[] b, int p, int end) {
    for (int i = p; i < end; i++) {
      if (b[i] == '\n') {
        return i > p && b[i - 1] == '\r' ? i - 1 : i;
      }
    }
    return end;
  }

  /** Index after the terminator of the line that ends at {@code lineEnd}. */
  static int nextLine(byte[] b, int lineEnd) {
    return b[lineEnd] == '\r' ? lineEnd + 2 : lineEnd + 1;
  }

  /**
   * Splits the header lines of {@code b[from, end)} (the empty line excluded) into {@code lines}.
   *
   * @return null, or why the block is malformed (a 400)
   */
  static String headers(byte[] b, int from, int end, HeaderLines lines) {
    int p = from;
    while (p < end) {
      int le = lineEnd(b, p, end);
      String bad =
          b[p] == ' ' || b[p] == '\t' ? continuation(b, p, le, lines) : field(b, p, le, lines);
      if (bad != null) {
        return bad;
      }
      p = nextLine(b, le);
    }
    return null;
  }

  /** An obs-fold line: a continuation of the previous line's value (RFC 9112 5.2). */
  private static String continuation(byte[] b, int p, int le, HeaderLines lines) {
    if (lines.count == 0) {
      return "header continuation without a header";
    }
    String bad = checkValue(b, p, le);
    if (bad != null) {
      return bad;
    }
    int end = trimEnd(b, p, le);
    if (end > p) {
      // A fold of whitespace alone adds nothing: extended over, it left its line end inside the
      // value, and the head went on with an empty line in it (a fuzzer found it).
      lines.extend(lines.count - 1, end);
    }
    return null;
  }

  /** A {@code name: value} line. */
  private static String field(byte[] b, int p, int le, HeaderLines lines) {
    int colon = -1;
    for (int i = p; i < le; i++) {
      byte c = b[i];
      if (c == ':') {
        colon = i;
        break;
      }
      if (!Ascii.tchar(c)) {
        return c == ' ' || c == '\t'
            ? "whitespace in or after a header name"
            : "invalid character in a header name";
      }
    }
    if (colon <= p) {
      return colon < 0 ? "header line without a colon" : "empty header name";
    }
    int vs = colon + 1;
    while (vs < le && (b[vs] == ' ' || b[vs] == '\t')) {
      vs++;
    }
    String bad = checkValue(b, vs, le);
    if (bad != null) {
      return bad;
    }
    lines.add(p, colon, vs, trimEnd(b, vs, le));
    return null;
  }

  private static String checkValue(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      int c = b[i] & 0xff;
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return c == 0 ? "NUL in a header value" : "control character in a header value";
      }
    }
    return null;
  }

  private static int trimEnd(byte[] b, int from, int to) {
    while (to > from && (b[to - 1] == ' ' || b[to - 1] == '\t')) {
      to--;
    }
    return to;
  }
}
