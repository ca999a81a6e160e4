package dev.replicapool.registrar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HostPortTest {
  @Test
  void parsesNamesIpv4AndBracketedIpv6() {
    assertThat(HostPort.parse("10.0.0.7:8080")).isEqualTo(new HostPort("10.0.0.7", 8080));
    assertThat(HostPort.parse("tracking.shop:80")).isEqualTo(new HostPort("tracking.shop", 80));
    HostPort v6 = HostPort.parse("[::1]:8081");
    assertThat(v6).isEqualTo(new HostPort("::1", 8081));
    assertThat(v6.toString()).isEqualTo("[::1]:8081");
    assertThat(HostPort.parse(" 127.0.0.1:1 ").toString()).isEqualTo("127.0.0.1:1");
  }

  @Test
  void rejectsWhatCannotBeDialled() {
    assertThatThrownBy(() -> HostPort.parse("8080")).hasMessageContaining("host:port");
    assertThatThrownBy(() -> HostPort.parse(":8080")).hasMessageContaining("host:port");
    assertThatThrownBy(() -> HostPort.parse("::1:8080")).hasMessageContaining("[v6-address]");
    assertThatThrownBy(() -> HostPort.parse("h:http")).hasMessageContaining("no numeric port");
    assertThatThrownBy(() -> HostPort.parse("h:0")).hasMessageContaining("between 1 and 65535");
    assertThatThrownBy(() -> HostPort.parse("")).hasMessageContaining("got nothing");
  }

  @Test
  void knowsWildcards() {
    assertThat(HostPort.parse("0.0.0.0:80").isWildcard()).isTrue();
    assertThat(HostPort.parse("[::]:80").isWildcard()).isTrue();
    assertThat(HostPort.parse("127.0.0.1:80").isWildcard()).isFalse();
  }
}
