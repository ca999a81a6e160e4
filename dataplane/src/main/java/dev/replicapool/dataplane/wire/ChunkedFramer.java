package dev.replicapool.dataplane.wire;

import io.netty.buffer.ByteBuf;

/**
 * Follows the framing of a chunked body (RFC 9112 7.1) as its bytes pass through, to know where the
 * message ends, how much payload it carried and whether it is well formed, without copying it.
 * Chunk extensions and trailer lines are bounded and skipped over (they pass through as bytes).
 *
 * <p>The bytes pass on unchanged, so a line end the framer accepts is one the receiver must read
 * the same way. A request's framing is {@link #strict}: a bare LF ends no line there (RFC 9112 7.1
 * asks for CRLF; a member that reads it otherwise would see another body, or another request), and
 * whitespace after a chunk size must lead to a ";" extension (7.1.1: "5 " alone is no size). An
 * answer's framing is lenient (a bare LF ends a line, RFC 9112 2.2) and goes to the one client that
 * asked for it.
 */
public final class ChunkedFramer {
  /** Told about payload bytes, for a receiver that needs the body without its framing. */
  public interface Payload {
    void data(ByteBuf buf, int index, int length);
  }

  /** {@link #feed} result: more bytes are needed. */
  public static final int MORE = -1;

  /** {@link #feed} result: the framing is broken. */
  public static final int MALFORMED = -2;

  private static final int SIZE = 0;
  private static final int EXTENSION = 1;
  private static final int SIZE_LF = 2;
  private static final int DATA = 3;
  private static final int DATA_CR = 4;
  private static final int DATA_LF = 5;
  private static final int TRAILER_START = 6;
  private static final int TRAILER_LINE = 7;
  private static final int TRAILER_LF = 8;
  private static final int END_LF = 9;
  private static final int SIZE_BWS = 10;

  private static final int MAX_LINE = 4096;

  // What one byte of framing leads to, besides MALFORMED.
  private static final int GO_ON = 0;
  private static final int END = 1;

  private int state;
  private long chunkLeft;
  private int sizeDigits;
  private int lineBytes;
  private long payload;
  private final boolean strict;

  private ChunkedFramer(boolean strict) {
    this.strict = strict;
  }

  /** For bodies a client sends: every line ends with CRLF, else the framing is broken. */
  public static ChunkedFramer strict() {
    return new ChunkedFramer(true);
  }

  /** For bodies a member sends: a bare LF ends a line too. */
  public static ChunkedFramer lenient() {
    return new ChunkedFramer(false);
  }

  public void reset() {
    state = SIZE;
    chunkLeft = 0;
    sizeDigits = 0;
    lineBytes = 0;
    payload = 0;
  }

  /** Payload bytes seen so far. */
  public long payload() {
    return payload;
  }

  /**
   * Follows {@code buf[from, to)}.
   *
   * @param sink told about payload bytes; null when only the framing matters
   * @return the index just after the body's end when it ends in this range, else {@link #MORE}, or
   *     {@link #MALFORMED}
   */
  public int feed(ByteBuf buf, int from, int to, Payload sink) {
    int p = from;
    while (p < to) {
      if (state == DATA) {
        p += data(buf, p, to, sink);
        continue;
      }
      int next = framing(buf.getByte(p++));
      if (next != GO_ON) {
        return next == END ? p : MALFORMED;
      }
    }
    return MORE;
  }

  /** Passes as much of the current chunk's data as {@code buf[p, to)} holds; returns how much. */
  private int data(ByteBuf buf, int p, int to, Payload sink) {
    int n = (int) Math.min(chunkLeft, to - p);
    if (sink != null) {
      sink.data(buf, p, n);
    }
    chunkLeft -= n;
    payload += n;
    if (chunkLeft == 0) {
      state = DATA_CR;
    }
    return n;
  }

  /** One byte of the framing around the data, by state: GO_ON, END or MALFORMED. */
  private int framing(byte b) {
    return switch (state) {
      case SIZE -> size(b);
      case EXTENSION -> extension(b);
      case SIZE_BWS -> sizeBws(b);
      case SIZE_LF -> b == '\n' ? sizeDone() : MALFORMED;
      case DATA_CR -> dataCr(b);
      case DATA_LF -> b == '\n' ? newChunk() : MALFORMED;
      case TRAILER_START -> trailerStart(b);
      case TRAILER_LINE -> trailerLine(b);
      case TRAILER_LF -> b == '\n' ? trailerDone() : MALFORMED;
      case END_LF -> b == '\n' ? END : MALFORMED;
      default -> throw new IllegalStateException("state " + state);
    };
  }

  private int size(byte b) {
    int d = Character.digit(b, 16);
    if (d >= 0) {
      if (++sizeDigits > 15) {
        return MALFORMED; // beyond any body this proxy carries, and near 64-bit overflow
      }
      chunkLeft = chunkLeft * 16 + d;
      return GO_ON;
    } else if (sizeDigits == 0) {
      return MALFORMED;
    } else if (b == ';' || (!strict && (b == ' ' || b == '\t'))) {
      state = EXTENSION;
      lineBytes = 0;
      return GO_ON;
    } else if (b == ' ' || b == '\t') {
      state = SIZE_BWS; // RFC 9112 7.1.1: whitespace after the size only before a ";"
      return GO_ON;
    } else if (b == '\r') {
      state = SIZE_LF;
      return GO_ON;
    }
    return b == '\n' && !strict ? sizeDone() : MALFORMED;
  }

  private int sizeBws(byte b) {
    if (b == ';') {
      state = EXTENSION;
      lineBytes = 0;
      return GO_ON;
    }
    return b == ' ' || b == '\t' ? GO_ON : MALFORMED;
  }

  private int extension(byte b) {
    if (b == '\r') {
      state = SIZE_LF;
    } else if (b == '\n') {
      return strict ? MALFORMED : sizeDone();
    } else if (++lineBytes > MAX_LINE || b == 0) {
      return MALFORMED;
    }
    return GO_ON;
  }

  private int dataCr(byte b) {
    if (b == '\n') {
      return strict ? MALFORMED : newChunk();
    } else if (b == '\r') {
      state = DATA_LF;
      return GO_ON;
    }
    return MALFORMED;
  }

  private int trailerStart(byte b) {
    if (b == '\n') {
      return strict ? MALFORMED : END;
    } else if (b == '\r') {
      state = END_LF;
    } else {
      state = TRAILER_LINE;
      lineBytes = 1;
    }
    return GO_ON;
  }

  private int trailerLine(byte b) {
    if (b == '\n') {
      if (strict) {
        return MALFORMED;
      }
      state = TRAILER_START;
    } else if (b == '\r') {
      state = TRAILER_LF;
    } else if (++lineBytes > MAX_LINE) {
      return MALFORMED;
    }
    return GO_ON;
  }

  private int sizeDone() {
    state = chunkLeft == 0 ? TRAILER_START : DATA;
    return GO_ON;
  }

  private int newChunk() {
    state = SIZE;
    sizeDigits = 0;
    chunkLeft = 0;
    return GO_ON;
  }

  private int trailerDone() {
    state = TRAILER_START;
    return GO_ON;
  }
}
