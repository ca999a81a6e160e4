package dev.replicapool.dataplane;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/2 client frames written byte by byte, for tests that must send what no real client would,
 * and the server's frames read back the same way.
 */
public final class RawH2Frames {
  private RawH2Frames() {}

  /** The client connection preface (RFC 9113 3.4), which its SETTINGS follow. */
  public static byte[] preface() {
    return "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  }

  /** A frame the server sent: its type, flags, stream id and payload. */
  public record Frame(int type, int flags, int stream, byte[] payload) {}

  /** Reads the next frame; an EOFException at the end of the connection. */
  public static Frame read(DataInputStream in) throws IOException {
    int length = (in.readUnsignedByte() << 16) | in.readUnsignedShort();
    int type = in.readUnsignedByte();
    int flags = in.readUnsignedByte();
    int stream = in.readInt() & Integer.MAX_VALUE;
    return new Frame(type, flags, stream, in.readNBytes(length));
  }

  /** One frame: the 9-byte header, then the payload. */
  public static byte[] frame(int type, int flags, int stream, byte[] payload) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.write(payload.length >>> 16);
    b.write(payload.length >>> 8);
    b.write(payload.length);
    b.write(type);
    b.write(flags);
    b.write(stream >>> 24);
    b.write(stream >>> 16);
    b.write(stream >>> 8);
    b.write(stream);
    b.writeBytes(payload);
    return b.toByteArray();
  }

  /**
   * The header block of GET {@code path} to {@code authority} (HPACK: static table entries and
   * literals without indexing), extra fields after.
   */
  public static byte[] request(String authority, String path, String... fields) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(new byte[] {(byte) 0x82, (byte) 0x86}); // :method GET, :scheme http
    literal(b, ":path", path);
    literal(b, ":authority", authority);
    for (int i = 0; i < fields.length; i += 2) {
      literal(b, fields[i], fields[i + 1]);
    }
    return b.toByteArray();
  }

  /**
   * An HPACK bomb's first header block: GET / with one 4,000-byte field ({@code x-bomb}) added to
   * the dynamic table.
   */
  public static byte[] hpackBombLoad(String authority) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(request(authority, "/"));
    b.write(0x40); // literal with incremental indexing, new name
    b.write(6);
    b.writeBytes("x-bomb".getBytes(StandardCharsets.US_ASCII));
    b.writeBytes(new byte[] {0x7f, (byte) 0xa1, 0x1e}); // length 4,000 (7-bit prefix)
    b.writeBytes("a".repeat(4000).getBytes(StandardCharsets.US_ASCII));
    return b.toByteArray();
  }

  /**
   * An HPACK bomb's header block: GET /bomb naming the dynamic table's newest entry 4,000 times, 16
   * MB of headers once decoded, from 4 KB.
   */
  public static byte[] hpackBomb(String authority) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(request(authority, "/bomb"));
    for (int i = 0; i < 4000; i++) {
      b.write(0xbe); // indexed field 62: the dynamic table's newest entry
    }
    return b.toByteArray();
  }

  /** A field as a literal without indexing (new name). */
  public static void literal(ByteArrayOutputStream b, String name, String value) {
    b.write(0);
    b.write(name.length());
    b.writeBytes(name.getBytes(StandardCharsets.US_ASCII));
    b.write(value.length());
    b.writeBytes(value.getBytes(StandardCharsets.US_ASCII));
  }
}
