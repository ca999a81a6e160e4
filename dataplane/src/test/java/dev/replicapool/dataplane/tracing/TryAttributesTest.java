package dev.replicapool.dataplane.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import org.junit.jupiter.api.Test;

class TryAttributesTest {
  @Test
  void aFirstTryThatGotA200HasNoResendCountAndNoError() {
    var a =
        TryAttributes.of(
            new TryAttributes.Try("GET", "http", "/a/b?secret=1", "10.0.0.7", 8080, 0, "2xx", 200));
    assertThat(a)
        .containsExactly(
            entry("http.request.method", "GET"),
            entry("url.scheme", "http"),
            entry("url.path", "/a/b"),
            entry("server.address", "10.0.0.7"),
            entry("server.port", 8080L),
            entry("http.response.status_code", 200L));
  }

  @Test
  void aFailedFirstTryIsAnErrorNamedByItsStatus() {
    var a =
        TryAttributes.of(
            new TryAttributes.Try("GET", "http", "/", "127.0.0.1", 9001, 0, "5xx", 503));
    assertThat(a).contains(entry("error.type", "503"), entry("http.response.status_code", 503L));
    assertThat(a).doesNotContainKey("http.request.resend_count");
  }

  @Test
  void aSecondTryCarriesItsResendCount() {
    var a =
        TryAttributes.of(new TryAttributes.Try("POST", "https", "/x", "m2", 443, 1, "2xx", 201));
    assertThat(a).contains(entry("http.request.resend_count", 1L));
    assertThat(a).doesNotContainKey("error.type");
  }

  @Test
  void aTryWithoutAnAnswerIsNamedByHowItFailed() {
    for (String how :
        new String[] {"connect_failure", "timeout", "reset", "refused", "cancelled"}) {
      var a = TryAttributes.of(new TryAttributes.Try("GET", "http", "/", "m", 1, 2, how, 0));
      assertThat(a).contains(entry("error.type", how), entry("http.request.resend_count", 2L));
      assertThat(a).doesNotContainKey("http.response.status_code");
    }
    assertThat(TryAttributes.errorType("something-new", 0)).isEqualTo("_OTHER");
    assertThat(TryAttributes.errorType(null, 0)).as("still out").isNull();
  }

  @Test
  void anUnknownMethodIsOtherWithTheOriginalBeside() {
    var a = TryAttributes.of(new TryAttributes.Try("PURGE", "http", "/", "m", 1, 0, "2xx", 200));
    assertThat(a)
        .contains(
            entry("http.request.method", "_OTHER"), entry("http.request.method_original", "PURGE"));
  }
}
