package dev.replicapool.dataplane.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.Hedging;
import dev.replicapool.api.v1alpha1.Idempotent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one list of what a pool's members may receive twice. */
class IdempotentRequestsTest {
  @Test
  void byDefaultOnlyTheSafeMethodsAndNoGrpcCall() {
    IdempotentRequests d = IdempotentRequests.from(null, null);
    assertThat(d.method("GET")).isTrue();
    assertThat(d.method("HEAD")).isTrue();
    assertThat(d.method("OPTIONS")).isTrue();
    assertThat(d.method("PUT")).isFalse();
    assertThat(d.method("DELETE")).isFalse();
    assertThat(d.method("POST")).isFalse();
    assertThat(d.grpcCall("/grpc.health.v1.Health/Check")).isFalse();
  }

  @Test
  void theListIsTheUnionOfRoutingIdempotentAndHedgingIdempotentMethods() {
    Idempotent i = new Idempotent();
    i.methods = List.of("PUT");
    Hedging h = new Hedging();
    h.idempotentMethods = List.of("delete");
    IdempotentRequests r = IdempotentRequests.from(i, h);
    assertThat(r.method("PUT")).isTrue();
    assertThat(r.method("DELETE")).isTrue();
    assertThat(r.method("POST")).isFalse();
    assertThat(IdempotentRequests.from(null, h).method("DELETE")).isTrue();
  }

  @Test
  void grpcMethodsAreExactOrEveryMethodOfOneService() {
    Idempotent i = new Idempotent();
    i.grpcMethods = List.of("/pkg.Things/Get", "/grpc.health.v1.Health/*");
    IdempotentRequests r = IdempotentRequests.from(i, null);
    assertThat(r.grpcCall("/pkg.Things/Get")).isTrue();
    assertThat(r.grpcCall("/pkg.Things/GetMore")).isFalse();
    assertThat(r.grpcCall("/pkg.Things/Delete")).isFalse();
    assertThat(r.grpcCall("/grpc.health.v1.Health/Check")).isTrue();
    assertThat(r.grpcCall("/grpc.health.v1.Health/Watch")).isTrue();
    assertThat(r.grpcCall("/grpc.health.v1.HealthX/Check")).isFalse();
    assertThat(r.grpcCall("/grpc.health.v1.Health/a/b")).isFalse();
  }
}
