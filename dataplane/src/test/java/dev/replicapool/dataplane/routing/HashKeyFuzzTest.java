package dev.replicapool.dataplane.routing;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.replicapool.api.v1alpha1.ConsistentHash;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Coverage-guided fuzzing (Jazzer) of the consistent-hash key's extraction from what a client
 * sends: a Cookie header of any characters, looked up by any cookie name. The lookup finds a cookie
 * placed among others whatever surrounds it, never returns more than the header held, and a made-up
 * cookie's Set-Cookie line is well formed whatever the request carried. Inputs in {@code
 * src/test/resources/dev/replicapool/dataplane/routing/HashKeyFuzzTestInputs/<target>/}.
 */
class HashKeyFuzzTest {
  /** A cookie name as RFC 6265 allows it (an HTTP token). */
  static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9!#$%&'*+.^_`|~-]+");

  static final Pattern SET_COOKIE =
      Pattern.compile("[^=;\\s]+=[0-9a-f]{16}; Max-Age=60; Path=/; HttpOnly");

  @FuzzTest(maxDuration = "20s")
  void cookieHeader(FuzzedDataProvider data) {
    String name = data.consumeString(16);
    String value = data.consumeString(64);
    String header = data.consumeRemainingAsString();

    String found = HashKey.cookie(header, name);
    if (found != null) {
      assertThat(header).as("what was found is part of the header").contains(found);
      assertThat(found).as("one cookie's value, never the next one's").doesNotContain(";");
    }

    // Placed among others, a well-formed cookie is found, whatever follows it.
    if (TOKEN.matcher(name).matches()
        && !name.equals("other")
        && value.indexOf(';') < 0
        && value.strip().equals(value)) {
      String among = "other=1; " + name + "=" + value + (header.isEmpty() ? "" : "; " + header);
      String expected =
          value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
              ? value.substring(1, value.length() - 1)
              : value;
      assertThat(HashKey.cookie(among, name)).isEqualTo(expected);
    }

    // The key of a request: never NONE when there is a value, the same for the same value.
    long hash = HashKey.hash(value);
    assertThat(hash).isNotEqualTo(HashKey.NONE).isEqualTo(HashKey.hash(new String(value)));
    HashKey byHeader =
        new HashKey(
            new HashPolicy("x-user", null, null, false, ConsistentHash.Algorithm.Maglev), () -> 1);
    assertThat(byHeader.of(Map.of("x-user", value)::get, null).value()).isEqualTo(hash);

    // A cookie the request lacks is made up: its Set-Cookie line is one well-formed line.
    if (TOKEN.matcher(name).matches()) {
      HashKey byCookie =
          new HashKey(
              new HashPolicy(null, name, 60L, false, ConsistentHash.Algorithm.Maglev),
              () -> 0x00c0ffee00000001L);
      HashKey.Key key = byCookie.of(h -> h.equals("cookie") ? header : null, null);
      if (found == null) {
        assertThat(key.setCookie()).startsWith(name + "=").matches(SET_COOKIE);
        assertThat(key.value()).isEqualTo(HashKey.hash("00c0ffee00000001"));
      } else {
        assertThat(key.setCookie()).isNull();
        assertThat(key.value()).isEqualTo(HashKey.hash(found));
      }
    }
  }
}
