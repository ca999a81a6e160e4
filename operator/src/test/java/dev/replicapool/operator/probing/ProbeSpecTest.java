package dev.replicapool.operator.probing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.AppProtocol;
import dev.replicapool.api.v1alpha1.HealthCheckType;
import dev.replicapool.api.v1alpha1.ReplicaPoolSpec;
import dev.replicapool.api.wire.UpstreamTlsMaterial;
import dev.replicapool.operator.probing.ProbeSpec.StatusRange;
import dev.replicapool.operator.probing.ProbeSpec.Transport;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProbeSpecTest {
  static final UpstreamTlsMaterial TLS =
      new UpstreamTlsMaterial("CA", "a.example", null, null, false);

  static ProbeSpec from(AppProtocol protocol, HealthCheckType type) {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.appProtocol = protocol;
    spec.healthCheck.type = type;
    return ProbeSpec.from(spec, protocol.tls() ? TLS : null);
  }

  @Test
  void httpChecksSpeakWhatTheMembersSpeak() {
    assertThat(from(AppProtocol.HTTP, HealthCheckType.HTTP).transport()).isEqualTo(Transport.H1);
    assertThat(from(AppProtocol.WS, HealthCheckType.HTTP).transport()).isEqualTo(Transport.H1);
    assertThat(from(AppProtocol.H2C, HealthCheckType.HTTP).transport()).isEqualTo(Transport.H2C);
    assertThat(from(AppProtocol.HTTPS, HealthCheckType.HTTP).transport())
        .isEqualTo(Transport.TLS_ALPN);
    assertThat(from(AppProtocol.WSS, HealthCheckType.HTTP).transport()).isEqualTo(Transport.TLS_H1);
  }

  @Test
  void grpcChecksAlwaysSpeakHttp2WithTlsWhenTheMembersDo() {
    assertThat(from(AppProtocol.HTTP, HealthCheckType.GRPC).transport()).isEqualTo(Transport.H2C);
    assertThat(from(AppProtocol.H2C, HealthCheckType.GRPC).transport()).isEqualTo(Transport.H2C);
    assertThat(from(AppProtocol.HTTPS, HealthCheckType.GRPC).transport())
        .isEqualTo(Transport.TLS_H2);
    assertThat(from(AppProtocol.WSS, HealthCheckType.GRPC).transport()).isEqualTo(Transport.TLS_H2);
  }

  @Test
  void tlsMaterialStaysWithTlsTransportsOnly() {
    assertThat(from(AppProtocol.HTTPS, HealthCheckType.HTTP).tls()).isEqualTo(TLS);
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.appProtocol = AppProtocol.H2C;
    assertThat(ProbeSpec.from(spec, TLS).tls()).isNull();
  }

  @Test
  void everyHealthCheckFieldIsMapped() {
    ReplicaPoolSpec spec = new ReplicaPoolSpec();
    spec.healthCheck.path = "/ready";
    spec.healthCheck.port = 9901;
    spec.healthCheck.host = "tracking.example";
    spec.healthCheck.expectedStatuses = List.of("200-399", "418");
    ProbeSpec p = ProbeSpec.from(spec, null);
    assertThat(p.type()).isEqualTo(HealthCheckType.HTTP);
    assertThat(p.path()).isEqualTo("/ready");
    assertThat(p.port()).isEqualTo(9901);
    assertThat(p.authority()).isEqualTo("tracking.example");
    assertThat(p.expectedStatuses())
        .containsExactly(new StatusRange(200, 399), new StatusRange(418, 418));
    assertThat(p.passes(302)).isTrue();
    assertThat(p.passes(418)).isTrue();
    assertThat(p.passes(404)).isFalse();
    assertThat(p.passes(199)).isFalse();
  }

  @Test
  void defaultsAreAny2xxOnTheTrafficPortAndTheWholeServer() {
    ProbeSpec p = ProbeSpec.from(new ReplicaPoolSpec(), null);
    assertThat(p.expectedStatuses()).isEqualTo(ProbeSpec.ANY_2XX);
    assertThat(p.port()).isNull();
    assertThat(p.grpcService()).isEmpty();
    assertThat(p.passes(200)).isTrue();
    assertThat(p.passes(299)).isTrue();
    assertThat(p.passes(300)).isFalse();
  }

  @Test
  void equalSpecsAreEqualSoMembersAreNotRetracked() {
    assertThat(from(AppProtocol.HTTPS, HealthCheckType.GRPC))
        .isEqualTo(from(AppProtocol.HTTPS, HealthCheckType.GRPC));
    assertThat(from(AppProtocol.HTTPS, HealthCheckType.GRPC))
        .isNotEqualTo(from(AppProtocol.HTTPS, HealthCheckType.HTTP));
  }
}
