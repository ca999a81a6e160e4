package dev.replicapool.registrar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RegistrarOptionsTest {
  private static final String[] REQUIRED = {
    "--pool", "tracking", "--name", "k1", "--address", "127.0.0.1:8081"
  };

  private static String[] with(String... more) {
    String[] all = new String[REQUIRED.length + more.length];
    System.arraycopy(REQUIRED, 0, all, 0, REQUIRED.length);
    System.arraycopy(more, 0, all, REQUIRED.length, more.length);
    return all;
  }

  @Test
  void defaultsLeaseTo900AndRenewToAThird() throws Exception {
    RegistrarOptions options = RegistrarOptions.parse(REQUIRED);

    assertThat(options.pool()).isEqualTo("tracking");
    assertThat(options.name()).isEqualTo("k1");
    assertThat(options.address()).isEqualTo(new HostPort("127.0.0.1", 8081));
    assertThat(options.leaseMillis()).isEqualTo(900);
    assertThat(options.renewMillis()).isEqualTo(300);
    assertThat(options.namespace()).isEmpty();
    assertThat(options.healthUrl()).isEmpty();
    assertThat(options.kubeconfig()).isEmpty();
    assertThat(options.warnings()).isEmpty();
    assertThat(options.drainMillis()).as("no drain unless asked").isZero();
    assertThat(options.help()).isFalse();
  }

  @Test
  void readsTheDrainTime() throws Exception {
    assertThat(RegistrarOptions.parse(with("--drain-ms", "5000")).drainMillis()).isEqualTo(5000);
    assertThatThrownBy(() -> RegistrarOptions.parse(with("--drain-ms", "-1")))
        .isInstanceOf(UsageException.class);
  }

  @Test
  void readsEveryFlagInBothSpellings(@TempDir Path dir) throws Exception {
    Path kubeconfig = Files.writeString(dir.resolve("config"), "apiVersion: v1\n");
    RegistrarOptions options =
        RegistrarOptions.parse(
            with(
                "--namespace=shop",
                "--lease-ms",
                "1200",
                "--renew-ms=400",
                "--health-url",
                "http://127.0.0.1:8080/healthz",
                "--health-timeout-ms",
                "150",
                "--kubeconfig",
                kubeconfig.toString()));

    assertThat(options.namespace()).contains("shop");
    assertThat(options.leaseMillis()).isEqualTo(1200);
    assertThat(options.renewMillis()).isEqualTo(400);
    assertThat(options.healthUrl()).contains(URI.create("http://127.0.0.1:8080/healthz"));
    assertThat(options.healthTimeoutMillis()).contains(150L);
    assertThat(options.kubeconfig()).isEqualTo(Optional.of(kubeconfig));
  }

  @Test
  void renewDefaultsToAThirdOfAGivenLease() throws Exception {
    assertThat(RegistrarOptions.parse(with("--lease-ms", "3000")).renewMillis()).isEqualTo(1000);
  }

  @Test
  void helpWinsOverEverythingElse() throws Exception {
    assertThat(RegistrarOptions.parse("--bogus", "--help").help()).isTrue();
    assertThat(RegistrarOptions.USAGE).contains("--health-url", "--lease-ms", "--kubeconfig");
  }

  @Test
  void namesEveryMissingRequiredFlag() {
    assertThatThrownBy(() -> RegistrarOptions.parse("--pool", "p"))
        .isInstanceOf(UsageException.class)
        .hasMessage("missing required --name, --address");
  }

  @Test
  void rejectsUnknownFlagsAndStrayArguments() {
    assertThatThrownBy(() -> RegistrarOptions.parse(with("--leese-ms", "900")))
        .hasMessage("unknown flag --leese-ms");
    assertThatThrownBy(() -> RegistrarOptions.parse(with("extra")))
        .hasMessageContaining("unexpected argument 'extra'");
  }

  @Test
  void rejectsMissingAndRepeatedValues() {
    assertThatThrownBy(() -> RegistrarOptions.parse("--pool", "--name", "k1"))
        .hasMessage("--pool needs a value");
    assertThatThrownBy(() -> RegistrarOptions.parse(with("--lease-ms")))
        .hasMessage("--lease-ms needs a value");
    assertThatThrownBy(() -> RegistrarOptions.parse(with("--pool", "other")))
        .hasMessage("--pool given more than once");
  }

  @Test
  void rejectsBadNumbers() {
    assertThatThrownBy(() -> RegistrarOptions.parse(with("--lease-ms", "9OO")))
        .hasMessage("--lease-ms must be a whole number, got '9OO'");
    assertThatThrownBy(() -> RegistrarOptions.parse(with("--renew-ms", "0")))
        .hasMessageContaining("--renew-ms must be between 1 and");
    assertThatThrownBy(() -> RegistrarOptions.parse(with("--lease-ms", "900", "--renew-ms", "900")))
        .hasMessageContaining("--renew-ms (900) must be shorter than --lease-ms (900)");
  }

  @Test
  void warnsWhenRenewalsAreSparserThanAThird() throws Exception {
    RegistrarOptions options = RegistrarOptions.parse(with("--renew-ms", "500"));
    assertThat(options.warnings()).singleElement().asString().contains("more than a third");
  }

  @Test
  void rejectsBadAddresses() {
    assertThatThrownBy(() -> RegistrarOptions.parse("--pool", "p", "--name", "k", "--address", "x"))
        .hasMessageContaining("--address: address must be host:port");
    assertThatThrownBy(
            () -> RegistrarOptions.parse("--pool", "p", "--name", "k", "--address", "h:99999"))
        .hasMessageContaining("port must be between 1 and 65535");
    assertThatThrownBy(
            () -> RegistrarOptions.parse("--pool", "p", "--name", "k", "--address", "0.0.0.0:80"))
        .hasMessageContaining("wildcard");
  }

  @Test
  void rejectsBadHealthUrlsAndOrphanTimeout() {
    assertThatThrownBy(() -> RegistrarOptions.parse(with("--health-url", "127.0.0.1:8080/h")))
        .hasMessageContaining("--health-url must be an http:// or https:// URL");
    assertThatThrownBy(() -> RegistrarOptions.parse(with("--health-url", "localhost:8080/h")))
        .hasMessageContaining("--health-url must be an http:// or https:// URL");
    assertThatThrownBy(() -> RegistrarOptions.parse(with("--health-timeout-ms", "100")))
        .hasMessage("--health-timeout-ms needs --health-url");
  }

  @Test
  void rejectsAnUnreadableKubeconfig(@TempDir Path dir) {
    assertThatThrownBy(
            () -> RegistrarOptions.parse(with("--kubeconfig", dir.resolve("nope").toString())))
        .hasMessageContaining("is not a readable file");
  }

  @Test
  void rejectsNamesThatMakeNoValidLease() {
    assertThatThrownBy(
            () -> RegistrarOptions.parse("--pool", "p", "--name", "k1_", "--address", "h:1"))
        .hasMessageContaining("not a valid object name");
  }
}
