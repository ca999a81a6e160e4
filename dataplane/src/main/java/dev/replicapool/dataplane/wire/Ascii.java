package dev.replicapool.dataplane.wire;

import java.nio.charset.StandardCharsets;

/** Byte-level helpers of the HTTP/1 parsers: character classes and case-blind comparisons. */
final class Ascii {
  private Ascii() {}

  private static final boolean[] TCHAR = new boolean[256];

  static {
    for (char c = '0'; c <= '9'; c++) {
      TCHAR[c] = true;
    }
    for (char c = 'a'; c <= 'z'; c++) {
      TCHAR[c] = true;
      TCHAR[c - 32] = true;
    }
    for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
      TCHAR[c] = true;
    }
  }

  /** RFC 9110 5.6.2 token character. */
  static boolean tchar(byte b) {
    return TCHAR[b & 0xff];
  }

  static byte lower(byte b) {
    return b >= 'A' && b <= 'Z' ? (byte) (b + 32) : b;
  }

  /** Whether {@code b[from, to)} equals the lower-case ASCII {@code lower}, ignoring case. */
  static boolean equalsLower(byte[] b, int from, int to, byte[] lower) {
    if (to - from != lower.length) {
      return false;
    }
    for (int i = 0; i < lower.length; i++) {
      if (lower(b[from + i]) != lower[i]) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code lower} occurs in {@code b[from, to)}, ignoring case. */
  static boolean containsLower(byte[] b, int from, int to, byte[] lower) {
    outer:
    for (int i = from; i + lower.length <= to; i++) {
      for (int j = 0; j < lower.length; j++) {
        if (lower(b[i + j]) != lower[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  /**
   * The next element of a comma-separated list in {@code b[p, end)}, trimmed of spaces and tabs:
   * its bounds go to {@code bounds[0..1]}; returns where the element after it starts, or -1 when
   * the list is done.
   */
  static int nextListElement(byte[] b, int p, int end, int[] bounds) {
    if (p > end) {
      return -1;
    }
    int comma = p;
    while (comma < end && b[comma] != ',') {
      comma++;
    }
    int s = p;
    int e = comma;
    while (s < e && (b[s] == ' ' || b[s] == '\t')) {
      s++;
    }
    while (e > s && (b[e - 1] == ' ' || b[e - 1] == '\t')) {
      e--;
    }
    bounds[0] = s;
    bounds[1] = e;
    return comma + 1;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** Whether {@code b[from, to)} reads as {@code s}, byte for character (ISO-8859-1). */
  static boolean equals(byte[] b, int from, int to, String s) {
    if (s.length() != to - from) {
      return false;
    }
    for (int i = from; i < to; i++) {
      if ((b[i] & 0xff) != s.charAt(i - from)) {
        return false;
      }
    }
    return true;
  }

  static String string(byte[] b, int from, int to) {
    return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
  }

  /** A decimal number of at most 18 digits, or -1 when {@code b[from, to)} is anything else. */
  static long decimal(byte[] b, int from, int to) {
    if (to <= from || to - from > 18) {
      return -1;
    }
    long v = 0;
    for (int i = from; i < to; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) {
        return -1;
      }
      v = v * 10 + d;
    }
    return v;
  }
}
