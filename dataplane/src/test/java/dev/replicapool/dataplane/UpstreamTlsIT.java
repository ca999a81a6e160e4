package dev.replicapool.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.MemberState;
import dev.replicapool.api.wire.MemberSnapshot;
import dev.replicapool.api.wire.UpstreamTlsMaterial;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import org.junit.jupiter.api.Test;

/** TLS to members (appProtocol https): the pool's CA, the name checked, verification on. */
class UpstreamTlsIT extends DataPlaneTestBase {
  static final String HOST = "secure.shop.example";

  HttpServer httpsMember(String name) throws Exception {
    return vertx
        .createHttpServer(
            new HttpServerOptions()
                .setSsl(true)
                .setKeyCertOptions(
                    new PemKeyCertOptions()
                        .setCertValue(Buffer.buffer(resource("tls/a-example.crt")))
                        .setKeyValue(Buffer.buffer(resource("tls/a-example.key")))))
        .requestHandler(
            r ->
                r.response()
                    .putHeader("x-replica", name)
                    .end(r.isSSL() ? "tls " + name : "plain " + name))
        .listen(0, "127.0.0.1")
        .await();
  }

  void pool(HttpServer member, UpstreamTlsMaterial tls) {
    publish(
        SnapshotBuilder.pool("shop/secure")
            .hosts(HOST)
            .appProtocol("https")
            .upstreamTls(tls)
            .member(new MemberSnapshot("127.0.0.1", member.actualPort(), 1, MemberState.Healthy)));
  }

  @Test
  void membersAreReachedOverTlsWithTheirCaAndName() throws Exception {
    HttpServer m = httpsMember("s1");
    startDataPlane();
    pool(m, new UpstreamTlsMaterial(resource("tls/a-example.crt"), "a.example", null, null, false));
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      for (int i = 0; i < 3; i++) {
        RawHttp.Response r = c.get(HOST, "/x");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEqualTo("tls s1");
      }
    }
  }

  @Test
  void aCertificateNotSignedByThePoolsCaOrForAnotherNameIsRefused() throws Exception {
    HttpServer m = httpsMember("s1");
    startDataPlane();
    pool(m, new UpstreamTlsMaterial(resource("tls/b-example.crt"), "a.example", null, null, false));
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      assertThat(c.get(HOST, "/x").status()).isEqualTo(502);
    }
    pool(
        m,
        new UpstreamTlsMaterial(resource("tls/a-example.crt"), "other.example", null, null, false));
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      assertThat(c.get(HOST, "/x").status()).isEqualTo(502);
    }
  }

  @Test
  void verificationOffOnlyWhenThePoolSaysSo() throws Exception {
    HttpServer m = httpsMember("s1");
    startDataPlane();
    pool(m, new UpstreamTlsMaterial(null, null, null, null, true));
    try (RawHttp c = RawHttp.connect(dp.trafficPort())) {
      RawHttp.Response r = c.get(HOST, "/x");
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("tls s1");
    }
  }
}
