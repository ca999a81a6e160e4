package dev.replicapool.dataplane.routing;

/**
 * XXH64 (Yann Collet's xxHash, 64-bit) of a byte array, written from the algorithm's specification.
 * A hash that is the same in every process and on every platform is what lets every data plane put
 * the same key on the same member; {@link String#hashCode} is 32 bits and clusters on short keys.
 */
final class XxHash64 {
  private static final long P1 = 0x9E3779B185EBCA87L;
  private static final long P2 = 0xC2B2AE3D27D4EB4FL;
  private static final long P3 = 0x165667B19E3779F9L;
  private static final long P4 = 0x85EBCA77C2B2AE63L;
  private static final long P5 = 0x27D4EB2F165667C5L;

  private XxHash64() {}

  static long hash(byte[] in, long seed) {
    int len = in.length;
    int bulk = len - len % 32;
    long h = len >= 32 ? stripes(in, bulk, seed) : seed + P5;
    return avalanche(tail(in, bulk, h + len));
  }

  /** The 32-byte stripes before {@code end}, four lanes merged. */
  private static long stripes(byte[] in, int end, long seed) {
    long v1 = seed + P1 + P2;
    long v2 = seed + P2;
    long v3 = seed;
    long v4 = seed - P1;
    for (int i = 0; i < end; i += 32) {
      v1 = round(v1, long64(in, i));
      v2 = round(v2, long64(in, i + 8));
      v3 = round(v3, long64(in, i + 16));
      v4 = round(v4, long64(in, i + 24));
    }
    long h =
        Long.rotateLeft(v1, 1)
            + Long.rotateLeft(v2, 7)
            + Long.rotateLeft(v3, 12)
            + Long.rotateLeft(v4, 18);
    return merge(merge(merge(merge(h, v1), v2), v3), v4);
  }

  /** The bytes from {@code i} on: eight at a time, then four, then one. */
  private static long tail(byte[] in, int i, long h) {
    int len = in.length;
    for (; i <= len - 8; i += 8) {
      h ^= round(0, long64(in, i));
      h = Long.rotateLeft(h, 27) * P1 + P4;
    }
    if (i <= len - 4) {
      h ^= (int32(in, i) & 0xFFFFFFFFL) * P1;
      h = Long.rotateLeft(h, 23) * P2 + P3;
      i += 4;
    }
    for (; i < len; i++) {
      h ^= (in[i] & 0xFFL) * P5;
      h = Long.rotateLeft(h, 11) * P1;
    }
    return h;
  }

  private static long avalanche(long h) {
    h ^= h >>> 33;
    h *= P2;
    h ^= h >>> 29;
    h *= P3;
    return h ^ (h >>> 32);
  }

  private static long round(long acc, long input) {
    acc += input * P2;
    acc = Long.rotateLeft(acc, 31);
    return acc * P1;
  }

  private static long merge(long acc, long v) {
    acc ^= round(0, v);
    return acc * P1 + P4;
  }

  /** Eight bytes, little-endian. */
  private static long long64(byte[] b, int i) {
    return (b[i] & 0xFFL)
        | (b[i + 1] & 0xFFL) << 8
        | (b[i + 2] & 0xFFL) << 16
        | (b[i + 3] & 0xFFL) << 24
        | (b[i + 4] & 0xFFL) << 32
        | (b[i + 5] & 0xFFL) << 40
        | (b[i + 6] & 0xFFL) << 48
        | (b[i + 7] & 0xFFL) << 56;
  }

  /** Four bytes, little-endian. */
  private static int int32(byte[] b, int i) {
    return (b[i] & 0xFF)
        | (b[i + 1] & 0xFF) << 8
        | (b[i + 2] & 0xFF) << 16
        | (b[i + 3] & 0xFF) << 24;
  }
}
