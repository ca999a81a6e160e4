package dev.replicapool.dataplane.tracing;

/**
 * A W3C Trace Context {@code traceparent} as an intermediary reads it: a header that does not parse
 * is treated as absent (a new trace starts), never repaired. Version 00 must be exactly 55
 * characters; a later version may carry more after a '-', which is ignored (the specification's
 * forward compatibility rule). Version ff is invalid.
 */
public record TraceParent(String traceId, String parentId, boolean sampled) {
  static final int LENGTH = 55;

  /** The header's meaning, or null when it is missing or invalid. */
  public static TraceParent parse(CharSequence h) {
    if (h == null || h.length() < LENGTH) {
      return null;
    }
    if (!hex(h, 0, 2) || (h.charAt(0) == 'f' && h.charAt(1) == 'f')) {
      return null;
    }
    boolean v00 = h.charAt(0) == '0' && h.charAt(1) == '0';
    if (v00 ? h.length() != LENGTH : h.length() > LENGTH && h.charAt(LENGTH) != '-') {
      return null;
    }
    if (h.charAt(2) != '-' || h.charAt(35) != '-' || h.charAt(52) != '-') {
      return null;
    }
    if (!hex(h, 3, 35) || !hex(h, 36, 52) || !hex(h, 53, 55)) {
      return null;
    }
    if (zeros(h, 3, 35) || zeros(h, 36, 52)) {
      return null;
    }
    int flags = Character.digit(h.charAt(54), 16);
    return new TraceParent(
        h.subSequence(3, 35).toString(), h.subSequence(36, 52).toString(), (flags & 1) == 1);
  }

  /** The version 00 header a member gets: this trace, the given span as its parent. */
  public static String format(String traceId, String spanId, boolean sampled) {
    return "00-" + traceId + "-" + spanId + (sampled ? "-01" : "-00");
  }

  // Lowercase only: the specification forbids uppercase hex in traceparent.
  private static boolean hex(CharSequence s, int from, int to) {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  private static boolean zeros(CharSequence s, int from, int to) {
    for (int i = from; i < to; i++) {
      if (s.charAt(i) != '0') {
        return false;
      }
    }
    return true;
  }
}
