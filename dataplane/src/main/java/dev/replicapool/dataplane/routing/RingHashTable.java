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

  /** Point hashes with the sign bit flipped, so that signed order is the unsigned ring order. */
  private final long[] ring;

  private final int[] owner;

  /**
   * @param addresses the members' "host:port", the order the caller indexes them by
   * @param weights positive, in the same order
   */
  RingHashTable(List<String> addresses, double[] weights, int points) {
    int n = addresses.size();
    double total = Arrays.stream(weights).sum() * points;
    double scale = total > MAX_POINTS ? points * (MAX_POINTS / total) : points;
    int count = 0;
    int[] per = new int[n];
    for (int i = 0; i < n; i++) {
      per[i] = (int) Math.max(1, Math.round(scale * weights[i]));
      count += per[i];
    }
    long[] hashes = new long[count];
    int[] members = new int[count];
    int k = 0;
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < per[i]; j++) {
        byte[] point = (addresses.get(i) + "_" + j).getBytes(StandardCharsets.UTF_8);
        hashes[k] = XxHash64.hash(point, 0) ^ Long.MIN_VALUE;
        members[k++] = i;
      }
    }
    Integer[] order = new Integer[count];
    for (int i = 0; i < count; i++) {
      order[i] = i;
    }
    // Ties (equal point hashes) go by member index: the same ring in every process.
    Arrays.sort(
        order,
        (a, b) ->
            hashes[a] != hashes[b]
                ? Long.compare(hashes[a], hashes[b])
                : Integer.compare(members[a], members[b]));
    ring = new long[count];
    owner = new int[count];
    for (int i = 0; i < count; i++) {
      ring[i] = hashes[order[i]];
      owner[i] = members[order[i]];
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
    } else {
      while (i > 0 && ring[i - 1] == ring[i]) {
        i--; // the first of equal points
      }
    }
    return i == ring.length ? 0 : i;
  }

  @Override
  public int member(int slot) {
    return ring.length == 0 ? -1 : owner[slot];
  }
}
