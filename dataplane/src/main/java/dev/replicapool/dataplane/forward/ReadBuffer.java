package dev.replicapool.dataplane.forward;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;

/**
 * The bytes of one client connection that were read but not yet used: a request head still
 * incomplete, or pipelined requests waiting for the response before them. One buffer that grows by
 * copying the reads into it, so that a head split over reads parses as one. On the connection's
 * event loop only.
 */
final class ReadBuffer {
  private ByteBuf bytes;

  /**
   * Takes over {@code buf}: the first read is kept as it is, later ones are copied after it (into a
   * bigger buffer from the reads' own allocator when it does not fit).
   */
  void add(ByteBuf buf) {
    if (bytes == null) {
      bytes = buf;
      return;
    }
    if (!bytes.isReadable()) {
      bytes.release();
      bytes = buf;
      return;
    }
    if (bytes.writableBytes() < buf.readableBytes() || bytes.refCnt() > 1) {
      ByteBuf bigger =
          bytes.alloc().buffer(Math.max(bytes.readableBytes() + buf.readableBytes(), 1024));
      bigger.writeBytes(bytes);
      bytes.release();
      bytes = bigger;
    }
    bytes.writeBytes(buf);
    buf.release();
  }

  boolean hasBytes() {
    return bytes != null && bytes.isReadable();
  }

  int readableBytes() {
    return bytes == null ? 0 : bytes.readableBytes();
  }

  /** The buffer itself, for a reader that consumes from it; null when nothing was kept. */
  ByteBuf peek() {
    return bytes;
  }

  /** Hands the whole buffer over (null when nothing was kept); this one is empty afterwards. */
  ByteBuf takeAll() {
    ByteBuf all = bytes;
    bytes = null;
    return all;
  }

  /** Gives the buffer back once everything in it is used. */
  void releaseIfUsedUp() {
    if (bytes != null && !bytes.isReadable()) {
      bytes.release();
      bytes = null;
    }
  }

  /** Drops what is kept: the connection closes, or its handler leaves. */
  void release() {
    if (bytes != null) {
      ReferenceCountUtil.safeRelease(bytes);
      bytes = null;
    }
  }
}
