package dev.replicapool.dataplane;

import static dev.replicapool.dataplane.SnapshotBuilder.pool;
import static org.assertj.core.api.Assertions.assertThat;

import dev.replicapool.api.v1alpha1.ConsistentHash;
import dev.replicapool.api.v1alpha1.HashCookie;
import dev.replicapool.testing.OnEventLoop;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The key of a ConsistentHash pool as the forward layer finds it, through a real data plane. */
class ConsistentHashForwardIT extends DataPlaneTestBase {

  @Test
  void aHeaderKeySticksAndRequestsWithoutOneRotate() throws Exception {
    TestMember k1 = member("k1");
    TestMember k2 = member("k2");
    TestMember k3 = member("k3");
    startDataPlane();
    ConsistentHash c = new ConsistentHash();
    c.header = "X-User";
    publish(
        pool("shop/sticky")
            .hosts("sticky.example")
            .consistentHash(c)
            .members(k1.snapshot(1.0), k2.snapshot(1.0), k3.snapshot(1.0)));
    try (RawHttp conn = RawHttp.connect(dp.trafficPort())) {
      for (String user : new String[] {"alice", "bob", "carol"}) {
        Set<String> replicas = new HashSet<>();
        for (int i = 0; i < 10; i++) {
          RawHttp.Response r =
              conn.send(
                  "GET /u/"
                      + i
                      + " HTTP/1.1\r\nHost: sticky.example\r\nx-user: "
                      + user
                      + "\r\n\r\n");
          assertThat(r.status()).isEqualTo(200);
          replicas.add(r.header("x-replica"));
        }
        assertThat(replicas).as("user %s", user).hasSize(1);
      }
    }
    assertThat(sequential(dp.trafficPort(), "sticky.example", 9))
        .as("no header: round-robin")
        .isEqualTo(java.util.Map.of("k1", 3, "k2", 3, "k3", 3));
  }

  @Test
  void aRequestWithoutTheCookieGetsOneAndKeepsItsMemberWithIt() throws Exception {
    TestMember k1 = member("k1");
    TestMember k2 = member("k2");
    TestMember k3 = member("k3");
    startDataPlane();
    ConsistentHash c = new ConsistentHash();
    c.cookie = new HashCookie();
    c.cookie.name = "sid";
    c.cookie.ttlSeconds = 60L;
    publish(
        pool("shop/cookie")
            .hosts("cookie.example")
            .consistentHash(c)
            .members(k1.snapshot(1.0), k2.snapshot(1.0), k3.snapshot(1.0)));
    try (RawHttp conn = RawHttp.connect(dp.trafficPort())) {
      for (int client = 0; client < 5; client++) {
        RawHttp.Response first = conn.get("cookie.example", "/");
        assertThat(first.status()).isEqualTo(200);
        String setCookie = first.header("set-cookie");
        assertThat(setCookie).matches("sid=[0-9a-f]{16}; Max-Age=60; Path=/; HttpOnly");
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));
        for (int i = 0; i < 5; i++) {
          RawHttp.Response next =
              conn.send(
                  "GET /again HTTP/1.1\r\nHost: cookie.example\r\nCookie: theme=dark; "
                      + cookie
                      + "\r\n\r\n");
          assertThat(next.header("x-replica")).isEqualTo(first.header("x-replica"));
          assertThat(next.header("set-cookie")).as("the client has one").isNull();
        }
      }
    }
  }

  @Test
  void overHttp2ToHttp2MembersTheCookieIsSetAndSticksToo() throws Exception {
    TestMember k1 = member("k1");
    TestMember k2 = member("k2");
    TestMember k3 = member("k3");
    startDataPlane();
    ConsistentHash c = new ConsistentHash();
    c.cookie = new HashCookie();
    c.cookie.name = "sid";
    c.cookie.ttlSeconds = 60L;
    publish(
        pool("shop/h2sticky")
            .hosts("h2.example")
            .appProtocol("kubernetes.io/h2c")
            .consistentHash(c)
            .members(k1.snapshot(1.0), k2.snapshot(1.0), k3.snapshot(1.0)));
    HttpClient h2 = h2PriorKnowledge(vertx);
    try {
      for (int client = 0; client < 3; client++) {
        String[] first = h2Get(h2, null);
        assertThat(first[1]).matches("sid=[0-9a-f]{16}; Max-Age=60; Path=/; HttpOnly");
        String cookie = first[1].substring(0, first[1].indexOf(';'));
        for (int i = 0; i < 4; i++) {
          String[] next = h2Get(h2, cookie);
          assertThat(next[0]).isEqualTo(first[0]);
          assertThat(next[1]).isNull();
        }
      }
    } finally {
      h2.close().await();
    }
  }

  /** The replica's JSON answer and the Set-Cookie header of one HTTP/2 GET. */
  String[] h2Get(HttpClient h2, String cookie) throws Exception {
    RequestOptions get =
        new RequestOptions()
            .setServer(SocketAddress.inetSocketAddress(dp.trafficPort(), "127.0.0.1"))
            .setHost("h2.example")
            .setPort(80)
            .setMethod(HttpMethod.GET)
            .setURI("/track/1");
    if (cookie != null) {
      get.putHeader("cookie", cookie);
    }
    return new OnEventLoop(vertx)
        .call(
            () ->
                h2.request(get)
                    .compose(r -> r.send())
                    .compose(
                        r ->
                            r.body()
                                .map(
                                    b ->
                                        new String[] {
                                          replica(b.toString()), r.getHeader("set-cookie")
                                        })))
        .await(10, TimeUnit.SECONDS);
  }

  static String replica(String json) {
    return new io.vertx.core.json.JsonObject(json).getString("replica");
  }
}
