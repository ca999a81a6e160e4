package dev.replicapool.dataplane.wire;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * The header lines of one HTTP/1 head, as offsets into the head's bytes: parsed once, then either
 * copied through as they came or dropped. Reused from one message to the next of a connection, so
 * that parsing allocates nothing once the arrays have grown to fit.
 */
class HeaderLines {
  static final int FOLDED = 1;
  static final int DROP = 2;

  private static final byte[] CRLF = {'\r', '\n'};
  private static final byte[] COLON_SP = {':', ' '};

  byte[] bytes;
  int count;
  private int[] offsets = new int[64]; // nameStart, nameEnd, valueStart, valueEnd per line
  private int[] flags = new int[16];

  void reset(byte[] bytes) {
    this.bytes = bytes;
    this.count = 0;
  }

  int add(int nameStart, int nameEnd, int valueStart, int valueEnd) {
    if (count * 4 + 4 > offsets.length) {
      offsets = Arrays.copyOf(offsets, offsets.length * 2);
      flags = Arrays.copyOf(flags, flags.length * 2);
    }
    int i = count++;
    offsets[i * 4] = nameStart;
    offsets[i * 4 + 1] = nameEnd;
    offsets[i * 4 + 2] = valueStart;
    offsets[i * 4 + 3] = valueEnd;
    flags[i] = 0;
    return i;
  }

  int nameStart(int i) {
    return offsets[i * 4];
  }

  int nameEnd(int i) {
    return offsets[i * 4 + 1];
  }

  int valueStart(int i) {
    return offsets[i * 4 + 2];
  }

  int valueEnd(int i) {
    return offsets[i * 4 + 3];
  }

  void extend(int i, int valueEnd) {
    offsets[i * 4 + 3] = valueEnd;
    flags[i] |= FOLDED;
  }

  void drop(int i) {
    flags[i] |= DROP;
  }

  boolean dropped(int i) {
    return (flags[i] & DROP) != 0;
  }

  boolean nameIs(int i, byte[] lower) {
    return Ascii.equalsLower(bytes, nameStart(i), nameEnd(i), lower);
  }

  /** Drops every line whose name is {@code lower}. */
  void dropNamed(byte[] lower) {
    for (int i = 0; i < count; i++) {
      if (nameIs(i, lower)) {
        drop(i);
      }
    }
  }

  /** Drops every line whose name equals {@code bytes[from, to)}, ignoring case. */
  void dropNamed(int from, int to) {
    for (int i = 0; i < count; i++) {
      int ns = nameStart(i);
      int ne = nameEnd(i);
      if (ne - ns != to - from) {
        continue;
      }
      boolean same = true;
      for (int k = 0; k < to - from && same; k++) {
        same = Ascii.lower(bytes[ns + k]) == Ascii.lower(bytes[from + k]);
      }
      if (same) {
        drop(i);
      }
    }
  }

  static final int TOKEN_CLOSE = 1;
  static final int TOKEN_KEEP_ALIVE = 2;
  static final int TOKEN_UPGRADE = 4;

  /**
   * The Connection header names Content-Length, Transfer-Encoding or Host: dropping them as
   * hop-by-hop would leave the message framed by a header the next hop never sees (request
   * smuggling), so they are not dropped and the message is refused.
   */
  static final int TOKEN_FRAMING = 8;

  private static final byte[] CLOSE = Ascii.bytes("close");
  private static final byte[][] FRAMING =
      new byte[][] {
        Ascii.bytes("content-length"), Ascii.bytes("transfer-encoding"), Ascii.bytes("host")
      };
  private static final byte[] KEEP_ALIVE = Ascii.bytes("keep-alive");
  private static final byte[] UPGRADE = Ascii.bytes("upgrade");

  /**
   * Reads the tokens of the Connection header at line {@code i}: drops the headers they name (RFC
   * 9110 7.6.1) and returns which of close, keep-alive and upgrade it names.
   */
  int connectionTokens(int i) {
    int found = 0;
    int[] t = new int[2];
    int end = valueEnd(i);
    for (int p = valueStart(i); (p = Ascii.nextListElement(bytes, p, end, t)) >= 0; ) {
      if (Ascii.equalsLower(bytes, t[0], t[1], CLOSE)) {
        found |= TOKEN_CLOSE;
      } else if (Ascii.equalsLower(bytes, t[0], t[1], KEEP_ALIVE)) {
        found |= TOKEN_KEEP_ALIVE;
      } else if (Ascii.equalsLower(bytes, t[0], t[1], UPGRADE)) {
        found |= TOKEN_UPGRADE;
      } else if (framing(t[0], t[1])) {
        found |= TOKEN_FRAMING;
      } else if (t[1] > t[0]) {
        dropNamed(t[0], t[1]);
      }
    }
    return found;
  }

  private boolean framing(int from, int to) {
    for (byte[] f : FRAMING) {
      if (Ascii.equalsLower(bytes, from, to, f)) {
        return true;
      }
    }
    return false;
  }

  /** Whether field {@code i}'s value is {@code s} as it stands (a folded value never is). */
  boolean valueIs(int i, String s) {
    return (flags[i] & FOLDED) == 0 && Ascii.equals(bytes, valueStart(i), valueEnd(i), s);
  }

  String value(int i) {
    String v = Ascii.string(bytes, valueStart(i), valueEnd(i));
    return (flags[i] & FOLDED) != 0 ? unfold(v) : v;
  }

  String name(int i) {
    return Ascii.string(bytes, nameStart(i), nameEnd(i));
  }

  /** Copies line {@code i}'s value as it came. */
  void writeValue(ByteBuf out, int i) {
    out.writeBytes(bytes, valueStart(i), valueEnd(i) - valueStart(i));
  }

  /** Copies the lines not dropped, each as {@code name: value CRLF}. */
  void writeKept(ByteBuf out) {
    for (int i = 0; i < count; i++) {
      if (dropped(i)) {
        continue;
      }
      if ((flags[i] & FOLDED) != 0) {
        out.writeBytes(bytes, nameStart(i), nameEnd(i) - nameStart(i));
        out.writeBytes(COLON_SP);
        out.writeBytes(Ascii.bytes(value(i)));
      } else {
        // name ... value as received (the separator between them was validated)
        out.writeBytes(bytes, nameStart(i), valueEnd(i) - nameStart(i));
      }
      out.writeBytes(CRLF);
    }
  }

  /** RFC 9112 5.2: each obs-fold becomes one space; no line end survives. */
  private static String unfold(String v) {
    return v.replaceAll("[ \\t]*\\r?\\n[ \\t]*", " ").strip();
  }
}
