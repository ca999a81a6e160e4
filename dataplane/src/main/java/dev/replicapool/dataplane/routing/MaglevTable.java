package dev.replicapool.dataplane.routing;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The Maglev lookup table (Eisenbud et al., NSDI 2016): every member walks its own permutation of
 * the slots (an offset and a step from two hashes of its address) and takes turns claiming the next
 * free slot of its permutation, until all are claimed. Each member ends up with a share of the
 * slots in proportion to its weight, within one slot, and removing a member mostly frees only its
 * own slots. A turn is taken once the member's weight, as a share of the largest weight, has added
 * up to a whole turn, so weight 0.5 claims every other round.
 *
 * <p>{@link #SIZE} is Envoy's default, a prime (the steps must be coprime to the size for every
 * permutation to reach every slot).
 */
final class MaglevTable implements HashTable {
  static final int SIZE = 65_537;

  private final int[] table;

  /**
   * @param addresses the members' "host:port", the order the caller indexes them by
   * @param weights positive, in the same order
   */
  MaglevTable(List<String> addresses, double[] weights, int size) {
    int n = addresses.size();
    table = new int[size];
    Arrays.fill(table, -1);
    if (n == 0) {
      return;
    }
    long[] position = new long[n];
    long[] step = new long[n];
    double[] credit = new double[n];
    double max = 0;
    for (int i = 0; i < n; i++) {
      byte[] a = addresses.get(i).getBytes(StandardCharsets.UTF_8);
      position[i] = Long.remainderUnsigned(XxHash64.hash(a, 0), size);
      step[i] = Long.remainderUnsigned(XxHash64.hash(a, 1), size - 1) + 1;
      max = Math.max(max, weights[i]);
    }
    int filled = 0;
    while (filled < size) {
      for (int i = 0; i < n && filled < size; i++) {
        credit[i] += weights[i] / max;
        if (credit[i] < 1) {
          continue;
        }
        credit[i] -= 1;
        while (table[(int) position[i]] >= 0) {
          position[i] = (position[i] + step[i]) % size;
        }
        table[(int) position[i]] = i;
        filled++;
      }
    }
  }

  @Override
  public int slots() {
    return table.length;
  }

  @Override
  public int slot(long key) {
    return (int) Long.remainderUnsigned(key, table.length);
  }

  @Override
  public int member(int slot) {
    return table[slot];
  }
}
