package dev.replicapool.dataplane.wire;

/**
 * Whether a Host value is {@code host [":" port]}, host a reg-name, an IPv4 address or an IP
 * literal in brackets (RFC 9110 7.2, RFC 3986 3.2.2).
 */
final class HostSyntax {
  private HostSyntax() {}

  static boolean valid(byte[] b, int from, int to) {
    if (to <= from) {
      return false;
    }
    int p = b[from] == '[' ? ipLiteralEnd(b, from, to) : regNameEnd(b, from, to);
    if (p < 0) {
      return false;
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

  /** Just after the {@code ]} of the literal at {@code from}; -1 when unclosed or invalid. */
  private static int ipLiteralEnd(byte[] b, int from, int to) {
    int p = from;
    while (p < to && b[p] != ']') {
      byte c = b[p];
      if (!(c == '[' || c == ':' || c == '.' || Character.digit(c, 16) >= 0)) {
        return -1;
      }
      p++;
    }
    return p >= to ? -1 : p + 1;
  }

  /** The {@code :} or end after the name at {@code from}; -1 when empty or invalid. */
  private static int regNameEnd(byte[] b, int from, int to) {
    int p = from;
    while (p < to && b[p] != ':') {
      if (!regNameChar(b[p])) {
        return -1;
      }
      p++;
    }
    return p == from ? -1 : p;
  }

  /** unreserved, pct-encoded's {@code %} or sub-delims (RFC 3986 3.2.2). */
  private static boolean regNameChar(byte c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || "-._~%!$&'()*+,;=".indexOf(c) >= 0;
  }
}
