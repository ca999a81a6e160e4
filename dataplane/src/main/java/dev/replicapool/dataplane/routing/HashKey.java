package dev.replicapool.dataplane.routing;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The hash key of one request of a ConsistentHash pool, from what its {@link HashPolicy} names: a
 * header, a cookie or the client's address. Hashed with {@link XxHash64} over the value's UTF-8
 * bytes, so every data plane computes the same key. A cookie the request lacks is made up when the
 * policy has a ttl (Envoy does the same): the key is that new value's, and the response must carry
 * the {@link Key#setCookie()} line so the client sends it from then on. Plain code, no I/O.
 */
public final class HashKey {
  /** No key: the request is balanced as RoundRobin would. */
  public static final long NONE = Long.MIN_VALUE;

  /**
   * A request's key.
   *
   * @param value the hash, or {@link #NONE}
   * @param setCookie the value of a Set-Cookie header for the response, or null
   */
  public record Key(long value, String setCookie) {
    public static final Key NONE = new Key(HashKey.NONE, null);
  }

  private final HashPolicy policy;
  private final LongSupplier random;

  /**
   * @param random source of new cookie values
   */
  public HashKey(HashPolicy policy, LongSupplier random) {
    this.policy = policy;
    this.random = random;
  }

  /**
   * @param header a request header's value by lower-case name, null when absent (for {@code
   *     cookie}: all Cookie headers joined with "; ")
   * @param remoteAddress the client's IP address, or null
   */
  public Key of(Function<String, String> header, String remoteAddress) {
    if (policy.header() != null) {
      String v = header.apply(policy.header());
      return v == null ? Key.NONE : new Key(hash(v), null);
    }
    if (policy.cookie() != null) {
      String v = cookie(header.apply("cookie"), policy.cookie());
      if (v != null) {
        return new Key(hash(v), null);
      }
      if (policy.cookieTtlSeconds() == null) {
        return Key.NONE;
      }
      String made = HexFormat.of().toHexDigits(random.getAsLong());
      return new Key(
          hash(made),
          policy.cookie()
              + "="
              + made
              + "; Max-Age="
              + policy.cookieTtlSeconds()
              + "; Path=/; HttpOnly");
    }
    if (policy.sourceIp() && remoteAddress != null) {
      return new Key(hash(remoteAddress), null);
    }
    return Key.NONE;
  }

  /** The key of a value; never {@link #NONE}. */
  public static long hash(String value) {
    long h = XxHash64.hash(value.getBytes(StandardCharsets.UTF_8), 0);
    return h == NONE ? h + 1 : h;
  }

  /** The value of cookie {@code name} in a Cookie header ("a=1; b=2"), or null. */
  static String cookie(String header, String name) {
    if (header == null) {
      return null;
    }
    int i = 0;
    int n = header.length();
    while (i < n) {
      int end = header.indexOf(';', i);
      if (end < 0) {
        end = n;
      }
      int eq = header.indexOf('=', i);
      if (eq > 0 && eq < end && header.substring(i, eq).strip().equals(name)) {
        String v = header.substring(eq + 1, end).strip();
        if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
          v = v.substring(1, v.length() - 1);
        }
        return v;
      }
      i = end + 1;
    }
    return null;
  }
}
