package dev.replicapool.dataplane.routing;

import dev.replicapool.api.v1alpha1.ConsistentHash;
import java.util.Locale;

/**
 * The ConsistentHash policy's settings as the data plane uses them: where the key comes from and
 * which table lays keys over the members.
 *
 * @param header request header to hash (lower case), or null
 * @param cookie cookie to hash, or null
 * @param cookieTtlSeconds with a cookie: give a request without one a new value, set for this long;
 *     null: never set a cookie
 * @param sourceIp hash the client's address
 */
public record HashPolicy(
    String header,
    String cookie,
    Long cookieTtlSeconds,
    boolean sourceIp,
    ConsistentHash.Algorithm algorithm) {

  public HashPolicy {
    algorithm = algorithm == null ? ConsistentHash.Algorithm.Maglev : algorithm;
    header = header == null ? null : header.toLowerCase(Locale.ROOT);
  }

  /** A snapshot's settings; null (a pool without any): no key, every request balanced unkeyed. */
  public static HashPolicy from(ConsistentHash c) {
    if (c == null) {
      return new HashPolicy(null, null, null, false, null);
    }
    return new HashPolicy(
        c.header,
        c.cookie == null ? null : c.cookie.name,
        c.cookie == null ? null : c.cookie.ttlSeconds,
        Boolean.TRUE.equals(c.sourceIP),
        c.algorithm);
  }

  /** The table of this policy over members with positive weights. */
  HashTable table(java.util.List<String> addresses, double[] weights) {
    return algorithm == ConsistentHash.Algorithm.RingHash
        ? new RingHashTable(addresses, weights, RingHashTable.POINTS)
        : new MaglevTable(addresses, weights, MaglevTable.SIZE);
  }
}
