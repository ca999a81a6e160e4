package dev.replicapool.dataplane;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/2 client frames written byte by byte, for tests that must send what no real client would.
 */
public final class RawH2Frames {
  private RawH2Frames() {}

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

  /** A field as a literal without indexing (new name). */
  public static void literal(ByteArrayOutputStream b, String name, String value) {
    b.write(0);
    b.write(name.length());
    b.writeBytes(name.getBytes(StandardCharsets.US_ASCII));
    b.write(value.length());
    b.writeBytes(value.getBytes(StandardCharsets.US_ASCII));
  }
}
