package dev.replicapool.dataplane.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.ConsistentHash;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HashKeyTest {
  static HashKey key(String header, String cookie, Long ttl, boolean sourceIp) {
    return new HashKey(
        new HashPolicy(header, cookie, ttl, sourceIp, ConsistentHash.Algorithm.Maglev),
        () -> 0x00c0ffee00000001L);
  }

  @Test
  void aHeaderIsLookedUpInLowerCaseAndItsAbsenceMeansNoKey() {
    HashKey k = key("X-User", null, null, false);
    assertThat(k.of(Map.of("x-user", "alice")::get, "198.18.0.1"))
        .isEqualTo(new HashKey.Key(HashKey.hash("alice"), null));
    assertThat(k.of(Map.<String, String>of()::get, "198.18.0.1")).isEqualTo(HashKey.Key.NONE);
  }

  @Test
  void aCookieIsFoundAmongOthersQuotedOrNot() {
    assertThat(HashKey.cookie("a=1; sid=abc; b=2", "sid")).isEqualTo("abc");
    assertThat(HashKey.cookie("sid=\"abc\"", "sid")).isEqualTo("abc");
    assertThat(HashKey.cookie("xsid=1;sid=2", "sid")).isEqualTo("2");
    assertThat(HashKey.cookie("a=1", "sid")).isNull();
    assertThat(HashKey.cookie(null, "sid")).isNull();
    HashKey k = key(null, "sid", 60L, false);
    assertThat(k.of(Map.of("cookie", "sid=abc")::get, null))
        .isEqualTo(new HashKey.Key(HashKey.hash("abc"), null));
  }

  @Test
  void aMissingCookieIsMadeUpAndSetOnlyWithATtl() {
    HashKey k = key(null, "sid", 3600L, false);
    HashKey.Key made = k.of(Map.<String, String>of()::get, null);
    assertThat(made.value()).isEqualTo(HashKey.hash("00c0ffee00000001"));
    assertThat(made.setCookie()).isEqualTo("sid=00c0ffee00000001; Max-Age=3600; Path=/; HttpOnly");
    // The client sends it back: the same key.
    assertThat(k.of(Map.of("cookie", "sid=00c0ffee00000001")::get, null).value())
        .isEqualTo(made.value());
    assertThat(key(null, "sid", null, false).of(Map.<String, String>of()::get, null))
        .isEqualTo(HashKey.Key.NONE);
  }

  @Test
  void theSourceAddressIsHashedWhenAsked() {
    assertThat(key(null, null, null, true).of(Map.<String, String>of()::get, "198.18.0.7"))
        .isEqualTo(new HashKey.Key(HashKey.hash("198.18.0.7"), null));
    assertThat(key(null, null, null, true).of(Map.<String, String>of()::get, null))
        .isEqualTo(HashKey.Key.NONE);
    assertThat(key(null, null, null, false).of(Map.of("x", "y")::get, "198.18.0.7"))
        .isEqualTo(HashKey.Key.NONE);
  }
}
