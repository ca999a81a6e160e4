package dev.replicapool.dataplane.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.Idempotent;
import dev.replicapool.dataplane.policy.IdempotentRequests;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class H2RequestHeadersTest {
  static Http2Headers request(String method) {
    Http2Headers h = new DefaultHttp2Headers();
    h.method(method).scheme("https").path("/x").authority("a.example");
    return h;
  }

  @Test
  void theMemberGetsTheClientsHeadersWithTheProxysAdded() {
    Http2Headers in = request("POST").add("x-forwarded-for", "1.1.1.1").add("via", "2 other");
    Http2Headers out = H2RequestHeaders.forwarded(in, in.get("via"), "10.0.0.9", true, "rp-1");
    assertThat(out.get("x-forwarded-for").toString()).isEqualTo("1.1.1.1, 10.0.0.9");
    assertThat(out.get("x-forwarded-proto").toString()).isEqualTo("https");
    assertThat(out.get("x-forwarded-host").toString()).isEqualTo("a.example");
    assertThat(out.get("via").toString()).isEqualTo("2 other, 2 rp-1");
    assertThat(out.path().toString()).isEqualTo("/x");
    assertThat(in.contains("x-forwarded-proto"))
        .as("the client's headers stay as they are")
        .isFalse();
  }

  @Test
  void withoutAClientAddressOrViaOnlyTheProxysOwn() {
    Http2Headers out = H2RequestHeaders.forwarded(request("GET"), null, null, false, "rp-1");
    assertThat(out.contains("x-forwarded-for")).isFalse();
    assertThat(out.get("x-forwarded-proto").toString()).isEqualTo("http");
    assertThat(out.get("via").toString()).isEqualTo("2 rp-1");
  }

  @Test
  void aLoopIsThisProxyInVia() {
    assertThat(H2RequestHeaders.loopedBack("2 other, 2 rp-1", "rp-1")).isTrue();
    assertThat(H2RequestHeaders.loopedBack("2 other", "rp-1")).isFalse();
    assertThat(H2RequestHeaders.loopedBack(null, "rp-1")).isFalse();
  }

  @Test
  void aGrpcCallIsIdempotentOnlyWhenThePoolNamesItsMethod() {
    Http2Headers call =
        request("POST").path("/pkg.Things/Get").add("content-type", "application/grpc+proto");
    assertThat(H2RequestHeaders.grpc(call)).isTrue();
    assertThat(H2RequestHeaders.idempotent(call, true, IdempotentRequests.DEFAULT)).isFalse();
    var i = new Idempotent();
    i.grpcMethods = List.of("/pkg.Things/Get");
    IdempotentRequests named = IdempotentRequests.from(i, null);
    assertThat(H2RequestHeaders.idempotent(call, true, named)).isTrue();
    assertThat(H2RequestHeaders.idempotent(request("POST").path("/pkg.Things/Delete"), true, named))
        .isFalse();
    assertThat(H2RequestHeaders.idempotent(request("POST"), false, named))
        .as("a POST that is not gRPC")
        .isFalse();
    assertThat(H2RequestHeaders.idempotent(request("OPTIONS"), false, IdempotentRequests.DEFAULT))
        .isTrue();
    assertThat(H2RequestHeaders.grpc(request("GET"))).isFalse();
  }

  @Test
  void grpcTimeoutHasItsUnits() {
    assertThat(H2RequestHeaders.grpcTimeoutNanos("5S")).isEqualTo(TimeUnit.SECONDS.toNanos(5));
    assertThat(H2RequestHeaders.grpcTimeoutNanos("250m"))
        .isEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
    assertThat(H2RequestHeaders.grpcTimeoutNanos("1H")).isEqualTo(TimeUnit.HOURS.toNanos(1));
    assertThat(H2RequestHeaders.grpcTimeoutNanos("99999999n")).isEqualTo(99999999L);
    assertThat(H2RequestHeaders.grpcTimeoutNanos("123456789S")).as("9 digits").isZero();
    assertThat(H2RequestHeaders.grpcTimeoutNanos("5s")).isZero();
    assertThat(H2RequestHeaders.grpcTimeoutNanos("S")).isZero();
    assertThat(H2RequestHeaders.grpcTimeoutNanos(null)).isZero();
  }
}
