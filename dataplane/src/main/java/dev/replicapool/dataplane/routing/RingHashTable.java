package dev.replicapool.dataplane.routing;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Ketama-style ring hash: each member puts points on a 64-bit ring (hashes of "address_i"), {@link
 * #POINTS} times its weight; a key belongs to the first point at or after its hash, wrapping round.
 * A member's points depend on its own address and weight only, so removing one gives each of its
 * arcs to the next point's member and no other key moves (a ring sized by the member count, as
 * Envoy's, would add points to everybody). This many points keep shares within a few percent; past
 * {@link #MAX_POINTS} in all, every member's count is scaled down alike.
 */
final class RingHashTable implements HashTable {
  static final int POINTS = 4096;
  static final int MAX_POINTS = 1 << 20;
  private static final long INDEX_MASK = MAX_POINTS - 1;

  /** Point positions in ring order (see the constructor). */
  private final long[] ring;

  private final int[] owner;

  /**
   * @param addresses the members' "host:port", the order the caller indexes them by
   * @param weights positive, in the same order
   */
  RingHashTable(List<String> addresses, double[] weights, int points) {
    int n = addresses.size();
    double total = Arrays.stream(weights).sum() * points;
    // Room for rounding up (and the one point of a tiny weight) below the index bits' limit.
    double room = MAX_POINTS - 2.0 * n;
    double scale = total > room ? points * (room / total) : points;
    int count = 0;
    int[] per = new int[n];
    for (int i = 0; i < n; i++) {
      per[i] = (int) Math.max(1, Math.round(scale * weights[i]));
      count += per[i];
    }
    // A point's position: its hash (sign bit flipped, so that signed order is ring order) with the
    // low 20 bits replaced by its index, so that one primitive sort orders the ring and breaks ties
    // the same way in every process.
    long[] positions = new long[count];
    int[] members = new int[count];
    int k = 0;
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < per[i]; j++) {
        byte[] point = (addresses.get(i) + "_" + j).getBytes(StandardCharsets.UTF_8);
        positions[k] = ((XxHash64.hash(point, 0) ^ Long.MIN_VALUE) & ~INDEX_MASK) | k;
        members[k++] = i;
      }
    }
    Arrays.sort(positions);
    ring = positions;
    owner = new int[count];
    for (int i = 0; i < count; i++) {
      owner[i] = members[(int) (positions[i] & INDEX_MASK)];
    }
  }

  @Override
  public int slots() {
    return ring.length;
  }

  @Override
  public int slot(long key) {
    if (ring.length == 0) {
      return 0;
    }
    int i = Arrays.binarySearch(ring, key ^ Long.MIN_VALUE);
    if (i < 0) {
      i = -i - 1; // the first point above the key
    }
    return i == ring.length ? 0 : i;
  }

  @Override
  public int member(int slot) {
    return ring.length == 0 ? -1 : owner[slot];
  }
}
