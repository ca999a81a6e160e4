package dev.replicapool.dataplane.wire;

import java.util.Arrays;

/**
 * The pieces of a request line (RFC 9112 3): {@code method SP request-target SP HTTP-version},
 * found in the head's bytes. {@link RequestHead#parse} puts them together and keeps the offsets.
 */
final class RequestLine {
  private RequestLine() {}

  /** A character the part may not hold. */
  static final int INVALID = -2;

  private static final RequestHead.Method[] KNOWN = {
    RequestHead.Method.GET,
    RequestHead.Method.HEAD,
    RequestHead.Method.OPTIONS,
    RequestHead.Method.PUT,
    RequestHead.Method.DELETE,
    RequestHead.Method.TRACE,
    RequestHead.Method.POST,
    RequestHead.Method.PATCH,
    RequestHead.Method.CONNECT
  };

  /** The space after the method in {@code b[0, le)}; -1 when there is none, or {@link #INVALID}. */
  static int methodEnd(byte[] b, int le) {
    for (int i = 0; i < le; i++) {
      if (b[i] == ' ') {
        return i;
      }
      if (!Ascii.tchar(b[i])) {
        return INVALID;
      }
    }
    return -1;
  }

  /**
   * The space after the target starting at {@code from}; -1 when there is none (HTTP/0.9), or
   * {@link #INVALID} for a control character.
   */
  static int targetEnd(byte[] b, int from, int le) {
    for (int i = from; i < le; i++) {
      int c = b[i] & 0xff;
      if (c == ' ') {
        return i;
      }
      if (c < 0x20 || c == 0x7f) {
        return INVALID;
      }
    }
    return -1;
  }

  /** {@code HTTP/1.1} or {@code HTTP/1.0} at {@code b[v, le)}: null, else the refusal. */
  static WireError version(byte[] b, int v, int le) {
    if (le - v != 8
        || b[v] != 'H'
        || b[v + 1] != 'T'
        || b[v + 2] != 'T'
        || b[v + 3] != 'P'
        || b[v + 4] != '/'
        || b[v + 6] != '.'
        || !digit(b[v + 5])
        || !digit(b[v + 7])) {
      return WireError.badRequest("invalid HTTP version");
    }
    if (b[v + 5] != '1' || (b[v + 7] != '1' && b[v + 7] != '0')) {
      return new WireError(505, "HTTP version not supported");
    }
    return null;
  }

  private static boolean digit(byte b) {
    return b >= '0' && b <= '9';
  }

  /** The method named by {@code b[0, methodEnd)}. */
  static RequestHead.Method method(byte[] b, int methodEnd) {
    for (RequestHead.Method m : KNOWN) {
      if (m.name.length == methodEnd && Arrays.equals(b, 0, methodEnd, m.name, 0, methodEnd)) {
        return m;
      }
    }
    return RequestHead.Method.OTHER;
  }

  /** The authority of an absolute-form target ({@code http://a:1/x}) in {@code b[from, to)}. */
  static String absoluteFormAuthority(byte[] b, int from, int to) {
    int start;
    if (to - from > 7 && prefix(b, from, "http://")) {
      start = from + 7;
    } else if (to - from > 8 && prefix(b, from, "https://")) {
      start = from + 8;
    } else {
      return null;
    }
    int end = start;
    while (end < to && b[end] != '/' && b[end] != '?' && b[end] != '#') {
      end++;
    }
    return Ascii.string(b, start, end);
  }

  private static boolean prefix(byte[] b, int from, String p) {
    for (int i = 0; i < p.length(); i++) {
      if (Ascii.lower(b[from + i]) != p.charAt(i)) {
        return false;
      }
    }
    return true;
  }
}
