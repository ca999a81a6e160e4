package dev.replicapool.dataplane.wire;

import io.netty.buffer.ByteBuf;

/**
 * Follows the framing of a chunked body (RFC 9112 7.1) as its bytes pass through, to know where the
 * message ends, how much payload it carried and whether it is well formed, without copying it.
 * Chunk extensions and trailer lines are bounded and skipped over (they pass through as bytes).
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

  private static final int MAX_LINE = 4096;

  private int state;
  private long chunkLeft;
  private int sizeDigits;
  private int lineBytes;
  private long payload;

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
      switch (state) {
        case DATA -> {
          int n = (int) Math.min(chunkLeft, to - p);
          if (sink != null) {
            sink.data(buf, p, n);
          }
          p += n;
          chunkLeft -= n;
          payload += n;
          if (chunkLeft == 0) {
            state = DATA_CR;
          }
        }
        case SIZE -> {
          byte b = buf.getByte(p++);
          int d = Character.digit(b, 16);
          if (d >= 0) {
            if (++sizeDigits > 15) {
              return MALFORMED; // beyond any body this proxy carries, and near 64-bit overflow
            }
            chunkLeft = chunkLeft * 16 + d;
          } else if (sizeDigits == 0) {
            return MALFORMED;
          } else if (b == ';' || b == ' ' || b == '\t') {
            state = EXTENSION;
            lineBytes = 0;
          } else if (b == '\r') {
            state = SIZE_LF;
          } else if (b == '\n') {
            p = sizeDone(p);
          } else {
            return MALFORMED;
          }
        }
        case EXTENSION -> {
          byte b = buf.getByte(p++);
          if (b == '\r') {
            state = SIZE_LF;
          } else if (b == '\n') {
            p = sizeDone(p);
          } else if (++lineBytes > MAX_LINE || b == 0) {
            return MALFORMED;
          }
        }
        case SIZE_LF -> {
          if (buf.getByte(p++) != '\n') {
            return MALFORMED;
          }
          p = sizeDone(p);
        }
        case DATA_CR -> {
          byte b = buf.getByte(p++);
          if (b == '\n') {
            newChunk();
          } else if (b == '\r') {
            state = DATA_LF;
          } else {
            return MALFORMED;
          }
        }
        case DATA_LF -> {
          if (buf.getByte(p++) != '\n') {
            return MALFORMED;
          }
          newChunk();
        }
        case TRAILER_START -> {
          byte b = buf.getByte(p++);
          if (b == '\n') {
            return p;
          } else if (b == '\r') {
            state = END_LF;
          } else {
            state = TRAILER_LINE;
            lineBytes = 1;
          }
        }
        case TRAILER_LINE -> {
          byte b = buf.getByte(p++);
          if (b == '\n') {
            state = TRAILER_START;
          } else if (b == '\r') {
            state = TRAILER_LF;
          } else if (++lineBytes > MAX_LINE) {
            return MALFORMED;
          }
        }
        case TRAILER_LF -> {
          if (buf.getByte(p++) != '\n') {
            return MALFORMED;
          }
          state = TRAILER_START;
        }
        case END_LF -> {
          if (buf.getByte(p++) != '\n') {
            return MALFORMED;
          }
          return p;
        }
        default -> throw new IllegalStateException("state " + state);
      }
    }
    return MORE;
  }

  private int sizeDone(int p) {
    state = chunkLeft == 0 ? TRAILER_START : DATA;
    return p;
  }

  private void newChunk() {
    state = SIZE;
    sizeDigits = 0;
    chunkLeft = 0;
  }
}
