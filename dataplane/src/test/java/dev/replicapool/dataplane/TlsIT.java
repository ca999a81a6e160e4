package dev.replicapool.dataplane;

import static dev.replicapool.dataplane.SnapshotBuilder.pool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.replicapool.api.wire.TlsMaterial;
import dev.replicapool.testing.ReplicaProcess;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;

class TlsIT extends DataPlaneTestBase {

  record Answer(String subject, RawHttp.Response response) {}

  static TlsMaterial material(String name) throws Exception {
    return new TlsMaterial(resource("tls/" + name + ".crt"), resource("tls/" + name + ".key"));
  }

  /** A TLS connection with the given SNI name, trusting anything; one request over it. */
  static Answer call(int port, String sni, String host) throws Exception {
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, new TrustManager[] {new TrustAll()}, new SecureRandom());
    try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port)) {
      SSLParameters p = s.getSSLParameters();
      if (sni != null) {
        p.setServerNames(List.of(new SNIHostName(sni)));
      }
      s.setSSLParameters(p);
      s.startHandshake();
      X509Certificate cert = (X509Certificate) s.getSession().getPeerCertificates()[0];
      RawHttp http = new RawHttp(s);
      RawHttp.Response r = http.get(host, "/");
      return new Answer(cert.getSubjectX500Principal().getName(), r);
    }
  }

  @Test
  void sniPicksEachPoolsCertificateAndANewSecretIsServedLive() throws Exception {
    TestMember a = member("a");
    TestMember b = member("b");
    startDataPlane(settings().withListen("127.0.0.1", 0, 0));
    assertThat(dp.tlsPort()).isEqualTo(-1); // no TLS pool yet: no TLS port
    publish(
        pool("web/a")
            .hosts("a.example", "*.a.example")
            .tls(material("a-example"))
            .members(a.snapshot(1)));
    publish(pool("web/b").hosts("b.example").tls(material("b-example")).members(b.snapshot(1)));
    int port = dp.tlsPort();
    assertThat(port).isPositive();

    Answer toA = call(port, "a.example", "a.example");
    assertThat(toA.subject()).contains("CN=a.example").contains("test a-example,");
    assertThat(toA.response().header("x-replica")).isEqualTo("a");
    assertThat(a.headersSeen.get(0).get("x-forwarded-proto")).isEqualTo("https");

    Answer toB = call(port, "b.example", "b.example");
    assertThat(toB.subject()).contains("CN=b.example");
    assertThat(toB.response().header("x-replica")).isEqualTo("b");

    Answer wildcard = call(port, "www.a.example", "www.a.example");
    assertThat(wildcard.subject()).contains("CN=a.example");
    assertThat(wildcard.response().header("x-replica")).isEqualTo("a");

    // The Secret of pool a changes: new handshakes get the new certificate.
    publish(
        pool("web/a")
            .hosts("a.example", "*.a.example")
            .tls(material("a-example-rotated"))
            .members(a.snapshot(1)));
    await()
        .atMost(WAIT)
        .until(() -> call(port, "a.example", "a.example").subject().contains("a-example-rotated"));
    assertThat(call(port, "b.example", "b.example").subject()).contains("CN=b.example");

    // Status shows the certificate, never the key.
    String status = adminGet("/status").body();
    assertThat(status).contains("a-example-rotated").doesNotContain("PRIVATE KEY");
    assertThat(status + adminGet("/metrics").body()).doesNotContain(TOKEN);
  }

  @Test
  void aDedicatedTlsPortUsesItsPoolsCertificate() throws Exception {
    TestMember a = member("a");
    startDataPlane(); // first: a free port picked now cannot be one the data plane binds
    int dedicated = ReplicaProcess.freePort("127.0.0.1");
    publish(pool("web/a").port(dedicated).tls(material("b-example")).members(a.snapshot(1)));
    Answer answer = call(dedicated, null, "whatever");
    assertThat(answer.subject()).contains("CN=b.example");
    assertThat(answer.response().header("x-replica")).isEqualTo("a");
  }

  @Test
  void unusableTlsMaterialIsNackedAndThePreviousCertificateStays() throws Exception {
    TestMember a = member("a");
    startDataPlane(settings().withListen("127.0.0.1", 0, 0));
    publish(pool("web/a").hosts("a.example").tls(material("a-example")).members(a.snapshot(1)));

    TlsMaterial mismatched =
        new TlsMaterial(resource("tls/a-example-rotated.crt"), resource("tls/b-example.key"));
    String reason =
        publishRejected(pool("web/a").hosts("a.example").tls(mismatched).members(a.snapshot(1)));
    assertThat(reason).contains("private key does not match").doesNotContain("BEGIN");
    String garbage =
        publishRejected(
            pool("web/a")
                .hosts("a.example")
                .tls(new TlsMaterial("not a cert", "not a key"))
                .members(a.snapshot(1)));
    assertThat(garbage).contains("tls: cannot load");

    Answer stillA = call(dp.tlsPort(), "a.example", "a.example");
    assertThat(stillA.subject()).contains("test a-example,");
    assertThat(stillA.response().status()).isEqualTo(200);
  }

  static final class TrustAll implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
